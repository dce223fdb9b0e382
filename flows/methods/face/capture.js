// The face method's capture page: camera preview → one frame on a canvas → a JPEG data URL in the
// form's "image" field, small enough for the provider's body limit (the server fills MAX_FIELD_CHARS
// in when it serves this file). Loaded with the page's CSP nonce; no inline script anywhere.
(() => {
  "use strict";
  const MAX_FIELD_CHARS = __MAX_FIELD_CHARS__;
  const form = document.getElementById("face-form");
  if (!form) return;
  const video = document.getElementById("face-video");
  const canvas = document.getElementById("face-canvas");
  const field = document.getElementById("face-image");
  const button = document.getElementById("face-capture");
  const status = document.getElementById("face-status");
  const say = (text) => {
    status.textContent = text;
    status.hidden = false;
  };

  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return say(form.dataset.noCamera);
  navigator.mediaDevices
    .getUserMedia({ video: { width: { ideal: 320 }, height: { ideal: 240 }, facingMode: "user" }, audio: false })
    .then((stream) => {
      video.srcObject = stream;
      return video.play();
    })
    .then(() => {
      button.disabled = false;
    })
    .catch(() => say(form.dataset.noCamera));

  /** The frame as a data URL whose form encoding fits the budget: lower quality, then a smaller size. */
  function frame() {
    for (const scale of [1, 0.5]) {
      canvas.width = 320 * scale;
      canvas.height = 240 * scale;
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      for (let quality = 0.7; quality > 0.15; quality -= 0.1) {
        const image = canvas.toDataURL("image/jpeg", quality);
        if (encodeURIComponent(image).length <= MAX_FIELD_CHARS) return image;
      }
    }
    return undefined;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const image = frame();
    if (!image) return say(form.dataset.tooLarge);
    field.value = image;
    button.disabled = true;
    const stream = video.srcObject;
    if (stream) for (const track of stream.getTracks()) track.stop();
    form.submit();
  });
})();
