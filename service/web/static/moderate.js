// The moderator's replay viewer. Without a moderator token in this tab it shows nothing of the game.
"use strict";

(() => {
  const gameId = document.getElementById("main").dataset.gameId;
  const form = document.getElementById("token-form");
  const problem = document.getElementById("problem");
  PL.moderatorGate(form, problem, (token) => Replayer.fromAudit(gameId, token), () => {
    document.getElementById("replayer").hidden = true;
  });
})();
