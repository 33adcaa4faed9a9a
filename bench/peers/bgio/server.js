// boardgame.io's own server (Koa Lobby API + socket.io) with bgio-postgres storage.
//
// Env: BGIO_PORT, BGIO_PG_HOST (the Unix socket directory or a host), BGIO_PG_PORT,
// BGIO_PG_DATABASE, BGIO_PG_USER. Prints "ready <port>" once it listens.
"use strict";

const { Server } = require("boardgame.io/server");
const { PostgresStore } = require("bgio-postgres");
const { ExplodingKittens } = require("./game");

async function main() {
  const db = new PostgresStore({
    host: process.env.BGIO_PG_HOST,
    port: Number(process.env.BGIO_PG_PORT || 5432),
    database: process.env.BGIO_PG_DATABASE,
    username: process.env.BGIO_PG_USER || "postgres",
    logging: false, // Sequelize prints every statement by default
  });
  const server = Server({ games: [ExplodingKittens], db });
  const port = Number(process.env.BGIO_PORT || 8000);
  await server.run(port);
  console.log(`ready ${port}`);
  const stop = () => process.exit(0);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
