// 2000 orders in a virtualised Tabulator grid. ?slow=N makes the page's scroll tracker spend N ms on the main thread
// per scroll event: the regression a bench or a bisect plants.
(function () {
  var slow = Number(new URLSearchParams(location.search).get('slow') || 0);
  var cities = ['Lyon', 'Porto', 'Graz', 'Turku', 'Gent', 'Brno', 'Cork', 'Pisa'];
  var rows = [];
  for (var i = 1; i <= 2000; i++) {
    rows.push({ id: i, name: 'Customer ' + i, city: cities[i % cities.length], amount: (i * 37) % 1000, progress: (i * 13) % 100 });
  }
  var table = new Tabulator('#grid', {
    height: '620px',
    layout: 'fitColumns',
    data: rows,
    columns: [
      { title: '#', field: 'id', width: 70 },
      { title: 'Customer', field: 'name' },
      { title: 'City', field: 'city', width: 120 },
      { title: 'Amount', field: 'amount', width: 120, hozAlign: 'right' },
      { title: 'Progress', field: 'progress', width: 160, formatter: 'progress' },
    ],
  });
  table.on('tableBuilt', function () {
    document.querySelector('.tabulator-tableholder').addEventListener('scroll', function trackScroll() {
      var t = performance.now();
      while (performance.now() - t < slow) {}
    });
    document.body.setAttribute('data-ready', '1');
  });
})();
