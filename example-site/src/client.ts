/** The only script the browser runs: styles, and a mark on the navigation entry of the current section. */
import './style.css';

const here = location.pathname;
for (const link of document.querySelectorAll<HTMLAnchorElement>('.main-nav a')) {
  const target = new URL(link.href).pathname;
  if (target !== '/' && !/^\/[a-z]{2}\/$/.test(target) && here.startsWith(target)) link.classList.add('active');
}
