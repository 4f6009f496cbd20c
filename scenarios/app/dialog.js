import { markReady, toast } from './common.js';

const $ = (id) => document.getElementById(id);
const dialog = $('confirm-dialog');
const dialogResult = $('dialog-result');

// Native modal <dialog>: OK / Cancel submit the method=dialog form; Escape cancels.
$('open-dialog').addEventListener('click', () => {
  dialog.returnValue = '';
  $('dialog-note').value = '';
  dialog.showModal();
});
dialog.addEventListener('close', () => {
  const outcome = dialog.returnValue === 'ok' ? 'ok' : 'cancel';
  dialogResult.textContent = `Dialog closed: ${outcome}`;
  if (outcome === 'ok') toast('Saved');
});

// Custom modal: role=dialog aria-modal=true inside a full-viewport backdrop that intercepts clicks.
const backdrop = $('custom-backdrop');
const closeBtn = $('close-custom-modal');
let opener = null;
function openCustomModal() {
  opener = document.activeElement;
  backdrop.hidden = false;
  closeBtn.focus();
}
function closeCustomModal() {
  if (backdrop.hidden) return;
  backdrop.hidden = true;
  if (opener && opener.focus) opener.focus();
  opener = null;
}
$('open-custom-modal').addEventListener('click', openCustomModal);
closeBtn.addEventListener('click', closeCustomModal);
document.addEventListener('keydown', (event) => {
  if (backdrop.hidden) return;
  if (event.key === 'Escape') closeCustomModal();
  if (event.key === 'Tab') { event.preventDefault(); closeBtn.focus(); } // focus trap: one control
});

$('show-toast').addEventListener('click', () => toast('Hello from rehearse'));

// Actionability cases: record which button actually received a click.
let clicks = 0;
for (const id of ['moving-target', 'zero-size', 'hidden-button']) {
  const button = $(id);
  button.addEventListener('click', () => {
    clicks++;
    $('click-log').textContent = `Clicked: ${button.textContent} (${clicks} total)`;
  });
}

markReady();
