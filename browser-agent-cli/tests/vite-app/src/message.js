export const message = 'first version';

document.querySelector('#msg').textContent = message;

// Self-accepting: an edit replaces this module in place (HMR), the page is not reloaded.
if (import.meta.hot) {
  import.meta.hot.accept();
}
