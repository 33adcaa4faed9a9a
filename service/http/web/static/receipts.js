// A seat's receipts on the play page (docs/receipts.md): every answer to a command carries the
// service's signed receipt. The tab keeps them (sessionStorage, like the seat's token) and offers
// them for download with the seat's transcript, for `playlog verify --receipts FILE`.
"use strict";

PL.receipts = (() => {
  const storeKey = (gameId, seat) => `playlog:receipts:${gameId}:${seat}`;
  const all = (gameId, seat) => JSON.parse(sessionStorage.getItem(storeKey(gameId, seat)) || "[]");

  function count(gameId, seat) {
    const n = all(gameId, seat).length;
    const said = document.getElementById("receipts-count");
    if (said) said.textContent = n === 1 ? "1 receipt kept" : `${n} receipts kept`;
    const section = document.getElementById("receipts");
    if (section) section.hidden = n === 0;
  }

  // A retry's receipt is the first one's, byte for byte: kept once.
  function keep(gameId, seat, receipt) {
    const kept = all(gameId, seat);
    if (!kept.includes(receipt)) {
      kept.push(receipt);
      sessionStorage.setItem(storeKey(gameId, seat), JSON.stringify(kept));
    }
    count(gameId, seat);
  }

  // The download: the receipts, and the seat's transcript once the game is over.
  function offer(gameId, seat, token) {
    count(gameId, seat);
    document.getElementById("receipts-download").addEventListener("click", async () => {
      let transcript = null;
      try {
        transcript = await PL.api(`/games/${gameId}/seats/${seat}/transcript`, { token });
      } catch (error) {
        if (error.code !== "game_not_finished") throw error;
      }
      const file = { game_id: gameId, seat, receipts: all(gameId, seat), transcript };
      const link = PL.el("a", {
        href: URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: "application/json" })),
        download: `playlog-${gameId}-seat-${seat}-receipts.json`,
      });
      document.body.append(link);
      link.click();
      link.remove();
      URL.revokeObjectURL(link.href);
    });
  }

  return { keep, all, offer };
})();
