// The page of a device signed out everywhere (from another device, or its player deleted
// there): it says so, and offers to sign in again (a passkey, a transfer code) or to start
// as a new player. Nothing happens behind the player's back: no new player is made until
// they ask for one. Shown whatever the address says, until a welcome.

import { t } from "../i18n.js";
import { esc } from "../dom.js";
import { playerName } from "../player.js";
import { DevicesPanel } from "./devices.js";

export class SignedOutView {
  constructor(app) {
    this.app = app;
  }

  show(main) {
    this.el = document.createElement("div");
    this.el.className = "signed-out";
    this.el.innerHTML = `<div class="card-panel" role="alert">
      <h2>${esc(t("signedOut.title"))}</h2>
      <p>${esc(t("signedOut.why", { name: playerName() }))}</p>
      <p class="muted">${esc(t("signedOut.how"))}</p>
      </div>
      <div data-k="sign-in"></div>
      <div class="card-panel"><h3>${esc(t("signedOut.newTitle"))}</h3>
      <p class="muted">${esc(t("signedOut.newWhy"))}</p>
      <div class="row"><button class="btn" data-k="start-over">${esc(t("signedOut.startOver"))}</button></div></div>`;
    main.append(this.el);
    this.panel = new DevicesPanel(this.app, () => this.app.route(), { signInOnly: true });
    this.panel.mount(this.el.querySelector('[data-k="sign-in"]'));
    // Its welcome brings the page back to where the address says (app.js).
    this.el.querySelector('[data-k="start-over"]').onclick = () => this.app.net.startOver();
  }

  hide() {
    this.panel?.close();
    this.panel = null;
    this.el = null;
  }

  onLang() {
    const main = this.el?.parentElement;
    if (!main) return;
    this.hide();
    main.querySelector(".signed-out")?.remove();
    this.show(main);
  }
}
