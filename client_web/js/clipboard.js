// Copying a text (a game code, an invite link) to the clipboard.

import { t } from "./i18n.js";
import { toast } from "./notify.js";

/** Copy text to the clipboard, with a fallback for pages not served over https. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
  toast(t("msg.copied"), "info");
}
