// Draws the overview's charts with uPlot (served from /assets, no CDN) from the page's JSON. Without the script the
// totals table above still says everything but the per-day detail.
(() => {
  const source = document.getElementById('overview-data');
  if (!source || !window.uPlot) return;
  const { days, channels } = JSON.parse(source.textContent);
  const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const colors = { sent: '#4f46e5', delivered: '#16a34a', bounced: '#d97706', failed: '#dc2626' };
  for (const el of document.querySelectorAll('.chart[data-channel]')) {
    const counts = channels[el.dataset.channel];
    const names = Object.keys(colors);
    const opts = {
      width: el.clientWidth,
      height: 220,
      tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [{}, ...names.map((name) => ({ label: name, stroke: colors[name], width: 2, points: { size: 4 } }))],
      axes: [{}, { size: 60, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6] }], // whole messages
    };
    el.replaceChildren();
    const plot = new window.uPlot(opts, [xs, ...names.map((name) => counts[name])], el);
    el.dataset.drawn = 'true';
    window.addEventListener('resize', () => plot.setSize({ width: el.clientWidth, height: 220 }));
  }
})();
