// The client's whole state, one object (window.tapete in the console and the browser tests),
// and the redraw hooks that app.js wires to the renderers (so no module imports upwards).

export const STORE_TABLE = "tapete.table";
export const STORE_LANG = "tapete.lang";
export const STORE_NAME = "tapete.name";
export const STORE_POINTS = "tapete.showPoints";
export const STORE_TABLES = "tapete.tables";
export const STORE_AUTO_NEXT = "tapete.autoNext"; // "1": the end-of-deal pause goes on by itself
export const STORE_HISTORY = "tapete.history."; // + table id, in sessionStorage: What happened
export const STORE_MUTED = "tapete.muted"; // the player names whose chat lines this browser hides

export const S = {
  config: null, // GET /api/config: kinds, levels, languages
  lang: "en",
  dict: {},
  fallback: {},
  session: null, // {table, token, seat} (a spectator: {table, token: null, seat: null, watch: true})
  notice: null, // a message for the Games window (e.g. an unknown table to watch)
  ws: null,
  wsAttempts: 0,
  offline: false, // the connection is lost: play waits (and says so) until it is back
  // after a reconnection, until the missed events come: {since: the version held, first: the
  // new connection's first view's version, live: the lines added since that view}
  catchUp: null,
  version: null,
  view: null, // the last view the server sent
  said: [], // the last events that said something (the status line says them in the current language)
  restored: null, // after a reload, the history's last line and its version: {version, said} (history.js)
  proof: null, // a redeal someone asked for, with the cards that justify it: {seat, action, shown}
  finalTrick: null, // the trick that ended the previous deal (the view already shows the next)
  lastTrick: null, // the cards of the last trick taken in this deal, from the events seen
  dealTalon: null, // the talon of the deal being played once it is face up (for the pause at its end)
  pause: null, // the end of a deal, held until the player goes on: {view, row, trick, talon}
  hint: null,
  lastHintVersion: null,
  error: null,
  errorUntil: 0, // (performance.now()) a stale_version error stays through the views before it
  pending: false,
  log: [], // "Lo que ha pasado": the latest lines
  overDismissed: false,
  overAside: null, // the end window's button whose window (review, replay) took its place
  refocus: true, // (the page's first turn too: keyboard play starts on the first control)
  rankingBoard: null,
  user: null, // the signed-in person ({id, name}; null: a guest), from GET /api/me
  csrf: null, // the session's CSRF token, sent with every POST (X-CSRF-Token)
  presence: null, // the last presence message: who sits where, connections per seat (tables of several people)
  chat: [], // the table chat's last lines ({seat, name, text, version})
  invite: null, // the invitation code of the table this browser sits at (while seats are free)
  clocks: null, // the seat clocks of the last view or presence ({clock, seats}) and when they came
  clocksAt: 0,
  seatNews: null, // the last takeover / giveback / abandoned announcement
  ui: {
    bid: null, contract: null, giveCard: null, sing: true, showLast: false,
    showPoints: localStorage.getItem(STORE_POINTS) !== "0",
    autoNext: localStorage.getItem(STORE_AUTO_NEXT) === "1",
    choice: { game: null, profile: null, levels: [] },
    chatOpen: false,
  },
};

// what to draw again after a change; app.js puts the real renderers in
export const screen = {
  table() {}, // the table and the status line
  soon() {}, // the table at the next frame (a burst of server messages draws once)
  all() {}, // everything, e.g. after a change of language
  newGame() {}, // open the Games window
  player(name) {}, // open a player's page
};

export function resetTableState() {
  Object.assign(S, {
    view: null, version: null, said: [], restored: null, proof: null, finalTrick: null, lastTrick: null, hint: null, error: null, errorUntil: 0,
    pending: false, log: [], overDismissed: false, overAside: null, pause: null, dealTalon: null, rankingBoard: null,
    presence: null, chat: [], invite: null, clocks: null, clocksAt: 0, seatNews: null, catchUp: null, watchDelay: 0,
    refocus: true, // a new table: its first turn takes the focus
  });
  Object.assign(S.ui, { bid: null, contract: null, giveCard: null, sing: true, showLast: false });
}

export const watching = () => Boolean(S.session?.watch);
// a seat's own cards not shown to it (a table waiting for its people: the view is the
// spectators', with the seat's number): they are drawn face down, as a spectator sees them
export const handHidden = (v) => v.seat === null || (!(v.hand || []).length && (v.hand_counts?.[v.seat] ?? 0) > 0);
// the seat whose turn the board marks: none while the table waits for its people
export const toAct = (v, seat) => v.turn === seat && !v.over && S.presence?.status !== "waiting";
export const myTurn = () => Boolean(S.view && !S.view.over && !S.pause && S.view.seat !== null && S.view.turn === S.view.seat);
// the controls wait: an action is in flight, the connection is lost, or a deal's end is held
export const blocked = () => Boolean(S.pending || S.offline || S.pause);
export const legalOf = (type) => (S.view?.legal || []).filter((a) => a.type === type);
export const hintIs = (pred) => Boolean(S.hint && S.hint.action && pred(S.hint.action));
// a seat nobody has taken yet has no name: the Lobby's words for it (screen.freeSeat, set by
// app.js: "Open to anyone", "For an invited person"); one taken while the table waits has the
// name the presence says until the view has it (it has once the game begins)
export const playerName = (seat) => S.view?.players?.[seat]
  || (S.presence?.seats?.[seat]?.kind === "person" ? S.presence.seats[seat].name : null)
  || (screen.freeSeat ? screen.freeSeat(S.presence?.seats?.[seat]?.kind) : `#${seat}`);
