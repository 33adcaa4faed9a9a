// Ratings (docs/api.md, "Ratings"): a kind's leaderboard (GET /ratings/{kind}, in pages) and a
// player's page (GET /players/{id}): its rating and games per kind. A provisional rating says so.
"use strict";

(() => {
  const { api, el, showProblem } = PL;
  const $ = (id) => document.getElementById(id);
  const problem = $("problem");
  const main = document.getElementById("main");
  const rating = (r) => `${r.ordinal.toFixed(1)}${r.provisional ? " (provisional)" : ""}`;
  const games = (n) => (n === 1 ? "1 game" : `${n} games`);

  function place(p) {
    return el("tr", { "data-player-id": p.player_id },
      el("td", {}, String(p.rank)),
      el("td", {}, el("a", { href: `/player/${p.player_id}` }, p.name || "(unnamed)")),
      el("td", { title: `mu ${p.mu.toFixed(2)}, sigma ${p.sigma.toFixed(2)}` }, rating(p)),
      el("td", {}, String(p.games)));
  }

  // The leaderboard in pages, the best first: "Show more" reads the next by the page's `next`.
  async function more(url) {
    const page = await api(url);
    $("leaderboard-rows").append(...page.players.map(place));
    const button = $("leaderboard-more");
    button.hidden = !page.next;
    button.onclick = page.next ? () => more(page.next).catch((error) => showProblem(problem, error)) : null;
    return page;
  }

  async function leaderboard(kind) {
    const first = await more(`/ratings/${encodeURIComponent(kind)}?limit=50`);
    $("leaderboard-none").hidden = first.players.length > 0;
  }

  async function player(playerId) {
    const found = await api(`/players/${playerId}`);
    $("player-name").textContent = found.name;
    $("player-ratings-rows").replaceChildren(...found.ratings.map((r) => el("tr", { "data-kind": r.kind },
      el("td", {}, PL.gameTitle(r.kind)),
      el("td", { title: `mu ${r.mu.toFixed(2)}, sigma ${r.sigma.toFixed(2)}` }, rating(r)),
      el("td", {}, String(r.games)),
      el("td", {}, el("a", { href: `/leaderboard/${r.kind}` }, "Leaderboard")))));
    $("player-ratings").hidden = found.ratings.length === 0;
    $("player-ratings-none").hidden = found.ratings.length > 0;
    $("player-stats").replaceChildren(...found.stats.map((s) =>
      el("li", {}, `${PL.gameTitle(s.kind)}: ${games(s.played)}, ${s.won} won`)));
  }

  const shown = main.dataset.kind ? leaderboard(main.dataset.kind) : player(main.dataset.playerId);
  shown.catch((error) => showProblem(problem, error));
})();
