// What a race's events say to screen readers: the countdown, the start, each rival's finish
// or give-up, and the end with our place. Sighted racers see it on the strip and the
// countdown overlay; this puts the same news in words, once each.

import { t, formatTime } from "./i18n.js";

/**
 * The words for a room event of a race (`type` as game.js names it, `msg` the server's), or
 * null when it says nothing worth a word. Our own finish is the win banner's (win.js).
 */
export function raceNews(game, type, msg) {
  if (game.mode !== "race" || !msg) return null;
  const name = (pid) => game.players.get(pid)?.name || pid;
  switch (type) {
    case "countdown": {
      const n = Math.max(1, Math.round((game.startsAt - game.serverNow()) / 1000));
      return t("live.countdown", { n });
    }
    case "started":
      return t("live.go");
    case "finished":
      if (msg.player_id === game.you) return null;
      return t("live.rivalFinished", { name: name(msg.player_id), rank: msg.rank, time: formatTime(msg.time_ms) });
    case "gave_up":
      return msg.player_id === game.you ? null : t("live.rivalGaveUp", { name: name(msg.player_id) });
    case "race_over": {
      const n = msg.results.length;
      const mine = msg.results.find((r) => r.player_id === game.you);
      if (!mine) return t("live.raceOver", { n });
      return mine.rank ? t("live.raceOverPlace", { rank: mine.rank, n }) : t("live.raceOverNoPlace", { n });
    }
    default:
      return null;
  }
}
