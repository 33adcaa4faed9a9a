// The moderator's replay viewer. Without a moderator token in this tab it shows nothing of the game.
"use strict";

(() => {
  const { tokens, showProblem } = PL;
  const gameId = document.getElementById("main").dataset.gameId;
  const form = document.getElementById("token-form");
  const problem = document.getElementById("problem");
  PL.adoptFragmentToken("moderator");

  async function open(token) {
    try {
      await Replayer.fromAudit(gameId, token);
      form.hidden = true;
    } catch (error) {
      document.getElementById("replayer").hidden = true;
      if (error.status === 401 || error.status === 403) tokens.drop("moderator");
      showProblem(problem, error);
      form.hidden = false;
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = form.elements.token.value.trim();
    form.elements.token.value = "";
    tokens.set("moderator", token);
    showProblem(problem, null);
    open(token);
  });

  const token = tokens.get("moderator");
  if (token) open(token); else form.hidden = false;
})();
