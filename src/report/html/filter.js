(function () {
  var root = document.currentScript && document.currentScript.parentElement;
  if (!root) { return; }
  var boxes = root.querySelectorAll('.filter input[type=checkbox]');
  function apply() {
    var hidden = {};
    boxes.forEach(function (box) { hidden[box.getAttribute('data-code')] = !box.checked; });
    root.querySelectorAll('details.finding').forEach(function (finding) {
      finding.hidden = hidden[finding.getAttribute('data-code')] === true;
    });
  }
  boxes.forEach(function (box) { box.addEventListener('change', apply); box.disabled = false; });
  apply();
  root.setAttribute('data-script', 'ran');
})();
