// The app's state: set once per page load, so a reload would show.
window.__appLoadedAt ??= Math.random();
import './message.js';

console.log('vite app started');

document.querySelector('#load').addEventListener('click', async () => {
  const res = await fetch('/api/items');
  document.querySelector('#out').textContent = `items: HTTP ${res.status}`;
  console.error('loading items failed', res.status);
});
