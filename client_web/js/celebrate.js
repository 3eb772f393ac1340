// A win worth having: a short shower of suits across the screen (none for those who ask the
// system for reduced motion) and a chime made with WebAudio (no sound file), which the
// player may turn off; the choice is kept in local storage.

const SOUND_KEY = "seahaven.sound";
const SUITS = [["♠", "S"], ["♥", "H"], ["♦", "D"], ["♣", "C"]];

let audio = null;

/** Whether the win chime plays (on until the player turns it off). */
export function soundOn() {
  return localStorage.getItem(SOUND_KEY) !== "0";
}

/** Turn the chime on or off, for good (a chime under way stops). */
export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? "1" : "0");
  if (!on && audio) {
    audio.close().catch(() => {});
    audio = null;
  }
}

export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * Suits falling over the page for about two seconds. Nothing moves when the system asks for
 * reduced motion. Returns whether it ran.
 */
export function shower() {
  if (reducedMotion() || !Element.prototype.animate) return false;
  document.querySelector(".confetti")?.remove();
  const layer = document.createElement("div");
  layer.className = "confetti";
  layer.setAttribute("aria-hidden", "true");
  const width = window.innerWidth;
  let longest = 0;
  for (let i = 0; i < 48; i++) {
    const [symbol, suit] = SUITS[i % 4];
    const piece = document.createElement("span");
    piece.textContent = symbol;
    piece.dataset.suit = suit;
    piece.style.left = `${Math.random() * 100}%`;
    piece.style.fontSize = `${16 + Math.random() * 22}px`;
    layer.append(piece);
    const drift = (Math.random() - 0.5) * Math.min(width, 600) * 0.4;
    const turn = (Math.random() - 0.5) * 720;
    const duration = 1400 + Math.random() * 1000;
    const delay = Math.random() * 450;
    longest = Math.max(longest, duration + delay);
    piece.animate(
      [
        { transform: "translate(0, -8vh) rotate(0deg)", opacity: 1 },
        { transform: `translate(${drift}px, 108vh) rotate(${turn}deg)`, opacity: 0.85 },
      ],
      { duration, delay, easing: "cubic-bezier(0.25, 0.6, 0.45, 1)", fill: "both" },
    );
  }
  document.body.append(layer);
  setTimeout(() => layer.remove(), longest + 100);
  return true;
}

/** A bright arpeggio and chord, about a second long, if the sound is on. */
export function chime() {
  if (!soundOn()) return false;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return false;
  try {
    audio ??= new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const start = audio.currentTime + 0.03;
    const out = audio.createGain();
    out.gain.value = 0.16;
    out.connect(audio.destination);
    const notes = [523.25, 659.25, 783.99, 1046.5]; // C5 E5 G5 C6
    notes.forEach((f, i) => tone(out, f, start + i * 0.1, 0.35, "triangle"));
    for (const f of notes.slice(1)) tone(out, f, start + 0.45, 0.9, "sine", 0.5);
    return true;
  } catch {
    return false; // no audio device, or the browser refuses: a silent win is still a win
  }
}

function tone(out, freq, at, length, type, level = 1) {
  const osc = audio.createOscillator();
  const env = audio.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(level, at + 0.015);
  env.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(env).connect(out);
  osc.start(at);
  osc.stop(at + length + 0.05);
}

/** The celebration of a fresh win: the shower and the chime. */
export function celebrate() {
  return { shower: shower(), chime: chime() };
}
