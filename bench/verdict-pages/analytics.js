// A site's click tracker. ?slow=N makes it spend N ms on the main thread per operation click: the regression a bench
// plants (a handler that got slower), as a user would feel it.
(function () {
  var slow = Number(new URLSearchParams(location.search).get('slow') || 0);
  document.addEventListener(
    'click',
    function trackOpblockClick(e) {
      if (!e.target.closest || !e.target.closest('.opblock-summary')) return;
      var t = performance.now();
      while (performance.now() - t < slow) {}
    },
    true,
  );
})();
