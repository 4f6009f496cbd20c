// The grid page's own script: fetch the rows, render them in a virtualised Tabulator grid, wire the filter.
(function () {
  var money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' });
  var table = new Tabulator('#grid', {
    height: '620px',
    layout: 'fitColumns',
    ajaxURL: '/grid-data.json',
    index: 'id',
    initialSort: [{ column: 'date', dir: 'desc' }],
    columns: [
      { title: '#', field: 'id', width: 70, sorter: 'number' },
      { title: 'Customer', field: 'name', minWidth: 160 },
      { title: 'Email', field: 'email', minWidth: 240 },
      { title: 'City', field: 'city', width: 110 },
      { title: 'Date', field: 'date', width: 120 },
      {
        title: 'Amount', field: 'amount', width: 130, hozAlign: 'right', sorter: 'number',
        formatter: function (cell) { return money.format(cell.getValue()); },
      },
      {
        title: 'Status', field: 'status', width: 120,
        formatter: function (cell) { return '<span class="status ' + cell.getValue() + '">' + cell.getValue() + '</span>'; },
      },
      { title: 'Progress', field: 'progress', width: 140, formatter: 'progress', sorter: 'number' },
    ],
  });
  table.on('dataProcessed', function () {
    document.getElementById('count').textContent = table.getDataCount() + ' orders';
  });
  document.getElementById('filter').addEventListener('input', function (e) {
    var q = e.target.value.toLowerCase();
    if (!q) return table.clearFilter();
    table.setFilter(function (row) { return row.name.toLowerCase().indexOf(q) >= 0 || row.city.toLowerCase().indexOf(q) >= 0; });
  });
})();
