// "Your devices" on one's own player page: passkeys (add, name, remove, sign in), a transfer
// code with its QR code for a device without passkeys, sign in here with either, sign out
// everywhere, download my data and delete my player. The server checks everything; the
// WebAuthn calls are the browser's own (navigator.credentials).

import { t, formatDate } from "../i18n.js";
import { esc } from "../dom.js";
import { setPlayerName } from "../player.js";
import { toast } from "../notify.js";

const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64 = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));

/** Whether the page runs on an IP address, which browsers refuse as a passkey's site. */
export function onIpAddress(host = location.hostname) {
  return /^[0-9.]+$/.test(host) || host.includes(":");
}

export class DevicesPanel {
  /** `signInOnly`: just "Sign in on this device" (a device signed out, which has no
   * player to show the rest of). */
  constructor(app, onSignedIn, { signInOnly = false } = {}) {
    this.app = app;
    this.onSignedIn = onSignedIn;
    this.signInOnly = signInOnly;
    this.keys = null;
    this.code = null;
    this.el = null;
    const net = app.net;
    this.offs = [
      net.on("passkeys", (m) => { this.keys = m.passkeys; this.draw(); }),
      net.on("transfer_code", (m) => { this.code = m; this.draw(); }),
      net.on("passkey_challenge", (m) => this.challenge(m)),
      net.on("player_deleted", () => this.deleted()),
    ];
  }

  close() { for (const off of this.offs) off(); this.el = null; }

  /** Put the panel into `el` and ask for the list of passkeys. */
  mount(el) {
    this.el = el;
    if (this.keys === null && !this.signInOnly) this.app.net.send("list_passkeys");
    this.draw();
  }

  draw() {
    if (!this.el) return;
    // A code being typed survives a redraw (the list of passkeys may come in meanwhile).
    const typing = this.el.querySelector('[data-k="claim"] input')?.value;
    if (typing) this.app.claimCode = typing;
    const ip = onIpAddress();
    const here = `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}${location.pathname}#/player`;
    const keys = (this.keys || []).map((k) => `<li data-id="${esc(k.id)}"><b>${esc(k.name)}</b>
      <small class="muted">${esc(t("devices.added", { date: formatDate(new Date(k.created).toISOString().slice(0, 10)) }))}</small>
      <button class="btn small" data-k="rename">${esc(t("devices.rename"))}</button>
      <button class="btn small" data-k="remove">${esc(t("devices.remove"))}</button></li>`).join("");
    const code = this.code && this.code.expires_at > Date.now() ? `<div class="transfer" data-k="code">
      <div class="qr">${this.code.qr_svg}</div>
      <div><p class="transfer-code"><b>${esc(this.code.code)}</b></p>
      <p class="muted">${esc(t("devices.codeHelp", { time: new Date(this.code.expires_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) }))}</p></div></div>` : "";
    const signIn = `<h4>${esc(t("devices.signInHere"))}</h4>
      ${this.signInOnly && ip ? `<p class="note" data-k="ip-note">${esc(t("devices.ipNote"))} <a href="${esc(here)}">${esc(here)}</a></p>` : ""}
      <div class="row"><button class="btn" data-k="sign-in"${ip ? " disabled" : ""}>${esc(t("devices.signInPasskey"))}</button></div>
      <form class="row" data-k="claim"><label><span>${esc(t("devices.typeCode"))}</span>
        <input class="field" name="code" maxlength="12" autocomplete="one-time-code" placeholder="ABCD-EFGH" value="${esc(this.app.claimCode || "")}"></label>
        <button class="btn small">${esc(t("devices.useCode"))}</button></form>`;
    const left = this.app.gameNotice ? `<p class="note" role="status" data-k="game-left">${esc(this.app.gameNotice)}</p>` : "";
    if (this.signInOnly) {
      this.el.innerHTML = `<div class="card-panel devices">${signIn}</div>`;
    } else this.el.innerHTML = `<div class="card-panel devices">
      <h3>${esc(t("devices.title"))}</h3>${left}
      <p class="muted">${esc(t("devices.intro"))}</p>
      <h4>${esc(t("devices.passkeys"))}</h4>
      ${ip ? `<p class="note" data-k="ip-note">${esc(t("devices.ipNote"))} <a href="${esc(here)}">${esc(here)}</a></p>` : ""}
      <ul class="passkeys">${keys || `<li class="muted">${esc(t("devices.noPasskeys"))}</li>`}</ul>
      <div class="row"><button class="btn" data-k="add"${ip ? " disabled" : ""}>${esc(t("devices.add"))}</button></div>
      <h4>${esc(t("devices.transfer"))}</h4>
      <p class="muted">${esc(t("devices.transferIntro"))}</p>
      ${code}
      <div class="row"><button class="btn" data-k="new-code">${esc(t("devices.newCode"))}</button></div>
      ${signIn}
      <h4>${esc(t("devices.yourData"))}</h4>
      <div class="row wrap">
        <button class="btn" data-k="download">${esc(t("devices.download"))}</button>
        <button class="btn" data-k="sign-out">${esc(t("devices.signOutAll"))}</button>
        <button class="btn danger" data-k="delete">${esc(t("devices.delete"))}</button>
      </div></div>`;
    const on = (k, fn) => { const b = this.el.querySelector(`[data-k="${k}"]`); if (b) b.onclick = fn; };
    on("add", () => { this.purpose = "register"; this.app.net.send("passkey_options", { purpose: "register" }); });
    on("sign-in", () => this.app.net.send("passkey_options", { purpose: "sign_in" }));
    on("new-code", () => this.app.net.send("transfer_new", { origin: location.origin }));
    on("download", () => this.download());
    on("sign-out", () => { if (confirm(t("devices.signOutConfirm"))) this.signIn("sign_out_everywhere"); });
    on("delete", () => {
      if (confirm(t("devices.deleteConfirm"))) this.app.net.send("delete_player", { player_id: this.app.net.playerId });
    });
    for (const li of this.el.querySelectorAll(".passkeys li[data-id]")) {
      const id = li.dataset.id;
      li.querySelector('[data-k="rename"]').onclick = () => {
        const name = prompt(t("devices.namePrompt"), li.querySelector("b").textContent);
        if (name && name.trim()) this.app.net.send("passkey_rename", { id, name: name.trim().slice(0, 24) });
      };
      li.querySelector('[data-k="remove"]').onclick = () => {
        if (confirm(t("devices.removeConfirm"))) this.app.net.send("passkey_remove", { id });
      };
    }
    const form = this.el.querySelector('[data-k="claim"]');
    form.onsubmit = (ev) => {
      ev.preventDefault();
      const text = form.code.value.trim();
      if (text) this.signIn("transfer_claim", { code: text });
    };
  }

  /** Send a message that answers `welcome` as (maybe) another player; then show them. */
  signIn(type, fields = {}) {
    const before = this.app.net.playerId;
    const off = this.app.net.on("welcome", (m) => {
      off();
      if (m.name) setPlayerName(m.name);
      this.app.claimCode = null;
      const said = t(m.player_id === before ? "devices.signedOutOthers" : "devices.signedIn");
      toast([said, this.app.gameNotice].filter(Boolean).join(" "), "info");
      this.onSignedIn();
    });
    this.app.net.send(type, fields);
  }

  /** The server's options: make a passkey, or sign in with one. */
  async challenge(m) {
    const o = m.options;
    try {
      if (m.purpose === "register") {
        const cred = await navigator.credentials.create({ publicKey: {
          ...o, challenge: unb64(o.challenge), user: { ...o.user, id: unb64(o.user.id) },
          excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: unb64(c.id) })),
        } });
        const r = cred.response;
        // No name: the server names it after this device ("Chrome on Android").
        this.app.net.send("passkey_register", { credential: {
          id: b64(cred.rawId), client_data: b64(r.clientDataJSON), attestation_object: b64(r.attestationObject),
          transports: (r.getTransports ? r.getTransports() : []).filter((x) => ["usb", "nfc", "ble", "internal", "hybrid", "smart-card", "cable"].includes(x)),
        } });
      } else {
        const cred = await navigator.credentials.get({ publicKey: {
          ...o, challenge: unb64(o.challenge),
          allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: unb64(c.id) })),
        } });
        const r = cred.response;
        const credential = { id: b64(cred.rawId), client_data: b64(r.clientDataJSON),
          authenticator_data: b64(r.authenticatorData), signature: b64(r.signature) };
        if (r.userHandle && r.userHandle.byteLength) credential.user_handle = b64(r.userHandle);
        this.signIn("passkey_sign_in", { credential });
      }
    } catch (err) {
      toast(onIpAddress() ? t("devices.ipNote") : `${t("devices.failed")} (${err.name || err})`);
    }
  }

  async download() {
    const net = this.app.net;
    const res = await fetch(`/api/player/${encodeURIComponent(net.playerId)}/data`, { headers: { Authorization: `Bearer ${net.token}` }, cache: "no-store" });
    if (!res.ok) { toast(t("devices.failed")); return; }
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a");
    a.href = url;
    a.download = `seahaven-${net.playerId}.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /** Our player is gone: forget the token and come back as a new player. */
  deleted() {
    const net = this.app.net;
    net.token = null;
    net.playerId = null;
    localStorage.removeItem("seahaven.token");
    toast([t("devices.deleted"), this.app.gameNotice].filter(Boolean).join(" "), "info");
    // Nobody until the new player's welcome: what the pages ask waits for it.
    this.app.welcomed = false;
    net.setState("connecting");
    net.greet();
    location.hash = "#/play";
  }
}
