// The moderator's replay viewer. Without a moderator token in this tab it shows nothing of the game.
// Every read is on the game's access record; while the game runs the server asks for a why (an
// open dispute or a reason), which this page asks the moderator for and sends with each read.
"use strict";

(() => {
  const gameId = document.getElementById("main").dataset.gameId;
  const form = document.getElementById("token-form");
  const problem = document.getElementById("problem");
  const reasonForm = document.getElementById("reason-form");
  const NEEDS_WHY = new Set(["access_reason_required"]);

  function askWhy(token) {
    return new Promise((resolve) => {
      reasonForm.hidden = false;
      reasonForm.onsubmit = (event) => {
        event.preventDefault();
        const f = reasonForm.elements;
        const why = { dispute: f.dispute.value.trim(), reason: f.reason.value, note: f.note.value.trim() };
        PL.showProblem(problem, null);
        Replayer.fromAudit(gameId, token, { why })
          .then(() => { reasonForm.hidden = true; document.getElementById("replayer").hidden = false; resolve(); })
          .catch((error) => PL.showProblem(problem, error));
      };
    });
  }

  PL.moderatorGate(form, problem, async (token) => {
    try {
      await Replayer.fromAudit(gameId, token);
    } catch (error) {
      if (!NEEDS_WHY.has(error.code)) throw error;
      PL.showProblem(problem, error);
      askWhy(token);
    }
  }, () => {
    document.getElementById("replayer").hidden = true;
  });
})();
