// Browser tests of the built UI (dist/) in headless Chromium, with the Tauri backend replaced by
// an in-page fake at the IPC boundary (window.__TAURI_INTERNALS__), the layer these tests are
// about: what the HUD, the confirmation dialog, the timeline and the slow-loop panel (bootstrap's
// card, verdicts, decisions, memory, perception, history) do with what the backend says.
//
//   node tests/browser/hud.browser.mjs     (scripts/test.sh runs it after building dist/)
//
// playwright-core drives Debian's chromium; it never downloads a browser.

import { createServer } from "node:http";
import { readFileSync, existsSync, mkdirSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const DIST = join(process.cwd(), "dist");
const OUT = process.env.SMART_BROWSER_OUT ?? join(process.env.CARGO_TARGET_DIR ?? "/tmp", "browser");
mkdirSync(OUT, { recursive: true });
if (!existsSync(join(DIST, "index.html"))) throw new Error("dist/ is not built: run `npm run build`");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/")).replace(/^(\.\.[/\\])+/, "");
  const file = join(DIST, path === "/" ? "index.html" : path);
  if (!file.startsWith(DIST) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

// The fake backend, installed before the app's scripts run. `window.__fake` lets a test change
// what it answers and read what it was asked.
function installFake() {
  const HASH = "9f".repeat(32);
  const state = {
    now: 1_800_000_000_000,
    calls: [],
    pending: [],
    total: 100_000,
    listeners: {},
    presses: [],
    voice: { state: "listening", detail: "hold the hotkey to talk (ggml-tiny.en.bin)", whisper: "ggml-tiny.en.bin", mode: "push_to_talk", wake: "unavailable", microphone: "default" },
    setup: {
      data_dir: "/home/ana/.local/share/smart",
      initialised: !window.location.hash.includes("fresh"),
      roots: ["/home/ana"],
      models_dir: "/home/ana/.local/share/smart/models",
      models: [
        { name: "qwen2.5-coder-0.5b", description: "d", purpose: "proposer", bytes: 491_400_032, default: true, status: "missing", partial_bytes: 0 },
        { name: "whisper-tiny.en", description: "d", purpose: "stt", bytes: 77_704_698, default: true, status: "missing", partial_bytes: 0 },
      ],
      problem: null,
    },
    events: 40,
    perceived: 0,
    slow: {
      existing_user: !window.location.hash.includes("bootstrap"),
      memory: {
        stance: "execution",
        slow: {
          lease: null,
          decisions: [
            { id: 1, kind: "binding", decision: "Delete old logs outright", rationale: ["Delete old logs outright"], confidence: "low", gate: "commitment", at: 1, superseded_by: 2 },
            { id: 2, kind: "supersession", decision: "Quarantine old logs, never delete them", rationale: ["deleting cannot be undone"], confidence: "high", gate: "evaluate", at: 2, supersedes: 1 },
          ],
          principles: { "no-deletes": { kind: "non_negotiable", text: "Nothing is deleted without a quarantine first", set_at: 2 } },
          north_stars: { calm: { text: "A calm, findable home folder", version: 1, ratified_at: 2 } },
        },
        fast: {
          progress: { current_stage: "archiving", next_actions: ["move the reports"], blockers: ["waiting on the backup"], recent_wins: ["inbox sorted"], staleness_ms: 3_600_000, updated_at: 1, stale_at: 2, stale: true },
          signals: { user_preferences: ["short answers"], friction_signals: ["too many questions"] },
        },
        bridge: { artifacts: [{ name: "Archive plan", type: "plan", pointer: "docs/archive.md", status: "review", version: 3, owner: "person", updated_at: 1, freshness: "review_needed" }] },
        proposals_waiting: [],
        work_orders: [{ id: "wo-5f3a9c0e11", brief: "index the reports", lease: "l1", epoch: 1, tools: ["fs.scan", "rag.search"], opened_at: 1 }],
        bootstrap: window.location.hash.includes("bootstrap")
          ? { stage: "ladder", prompt: "Imagine a ladder. Where do you feel you're standing right now?", propose_only: true, snapshot: {}, sessions: 1, abbreviated: false, reentered: false }
          : null,
      },
      reads: [
        {
          seq: 30,
          at_ms: 1,
          trigger: "end_of_turn",
          verdicts: [
            { proposal: { reason: "the person keeps correcting the plan", severity: "medium", suggested_gate: "evaluation", source: "continuous_eval", at: 1 }, verdict: "referred", reason: "below high severity: suggested to the person, execution goes on" },
            { proposal: { reason: "the lease ran out", severity: "high", suggested_gate: "evaluation", source: "decay_manager", at: 1 }, verdict: "accepted", effect: { gate: "evaluate" }, reason: "execution pauses for the evaluation gate" },
          ],
        },
      ],
      gates: [{ seq: 7, at_ms: 1_800_000_000_000, from: "sensemaking", to: "execution", act: "commitment", writes: 1 }],
      // The current session (its last event a minute ago) and one from the day before.
      sessions: [
        { first_seq: 40, last_seq: 61, start_ms: 1_800_000_000_000 - 1_200_000, end_ms: 1_800_000_000_000 - 60_000, events: 22, committed: 3, refused: 1, asked: 1, approved: 1, denied: 0, undone: 0, gates: 2, emergencies: 0, failed: 0 },
        { first_seq: 1, last_seq: 39, start_ms: 1_800_000_000_000 - 86_400_000, end_ms: 1_800_000_000_000 - 86_400_000 + 2_700_000, events: 39, committed: 5, refused: 0, asked: 0, approved: 0, denied: 0, undone: 1, gates: 1, emergencies: 1, failed: 0 },
      ],
      session_gap_ms: 1_800_000,
    },
  };
  // The bootstrap machine, as far as the card needs it.
  const PROMPTS = {
    ladder: "Imagine a ladder. Where do you feel you're standing right now?",
    anchor: "What's currently happening that keeps you from slipping lower?",
    gap: "If you moved up just one step, what would be different in your day-to-day?",
    microstep: "What's one small thing that would make you feel supported moving toward that next step?",
    permission: "Would you like me to keep listening, or would it help if I started offering structure and ideas?",
    check_in: "I have context from before. How are things today - still on track, or has something shifted?",
    listening: null,
    done: null,
  };
  const NEXT = { ladder: "anchor", anchor: "gap", gap: "microstep", microstep: "permission", permission: "permission", listening: "listening", check_in: "done" };
  const recorded = { outcome: "recorded", code: null, reason: null, pending_id: null, seq: 50, tier: null, admissible_in_ms: null, notify: false };
  const moveTo = (stage, consent) => {
    const b = state.slow.memory.bootstrap;
    const restricts = stage === "done" ? consent !== "ready_for_commitment" : stage !== "check_in";
    state.slow.memory.bootstrap = { ...b, stage, prompt: PROMPTS[stage], propose_only: restricts };
    state.events++;
    return { outcome: recorded, stage, prompt: PROMPTS[stage], propose_only: restricts, turn: null };
  };
  const status = () => ({
    now_ms: state.now,
    stance: "execution",
    lease: { id: "l1", frame: "tidy the docs", horizon: "short", state: "active", expires_at_ms: state.now + 600_000, success_criteria: ["inbox empty"] },
    frontier: 3,
    gates: [1, 2, 3, 4].map((layer) => ({ layer, gate_ms: 1000, remaining_ms: layer === 4 ? 9_000 : 0 })),
    budget: { used: 12, limit: 1000 },
    pending: state.pending.map((p) => ({ id: p.id, tool: p.tool, layer: p.layer, tier: p.tier, call_hash: p.call_hash, expires_at_ms: p.expires_at_ms })),
    events: state.events,
  });
  const pendingCall = () => ({
    id: "pend-1",
    tool: "apply.move",
    layer: 3,
    tier: 3,
    why: "apply.move moves files: it waits for you",
    reversibility: "reversible",
    call_hash: HASH,
    args: { proposal: "ab".repeat(32) },
    created_at_ms: state.now,
    admissible_at_ms: state.now + 9_000,
    expires_at_ms: state.now + 300_000,
    preview: {
      kind: "moves",
      moves: [
        { from: "/home/ana/inbox/report.pdf", to: "/home/ana/archive/report.pdf", bytes: 123_456, target_exists: false },
        { from: "/home/ana/inbox/notes.txt", to: "/home/ana/archive/notes.txt", bytes: 42, target_exists: true },
      ],
      total_bytes: 123_498,
      more: 0,
    },
  });
  // Three events to a request, as a typed command writes (proposed, admitted, committed).
  const row = (seq) => ({ seq, corr: `c${Math.floor(seq / 3)}`, kind: seq % 3 === 0 ? "committed" : "proposed", wall_ms: state.now - (state.total - seq) * 1000, tool: "fs.scan", summary: `event ${seq}`, undoable: false });
  const handlers = {
    get_status: () => status(),
    pending_calls: () => ({ now_ms: state.now, calls: state.pending }),
    say: ({ text }) => {
      state.pending = [pendingCall()];
      return { corr: "c-say", utterance: text, steps: [{ source: "model", tool: "apply.move", args: {}, outcome: { outcome: "pending", code: null, reason: null, pending_id: "pend-1", seq: 7, tier: 3, admissible_in_ms: 9000, notify: false } }], reply: null, ended: "pending", model: "fake" };
    },
    decide: ({ pendingId, callHash, approve }) => {
      state.pending = [];
      return { outcome: approve ? "committed" : "denied", code: null, reason: null, pending_id: pendingId, seq: 9, tier: 3, admissible_in_ms: null, notify: false, _hash: callHash };
    },
    emergency_stop: () => ({ outcome: "recorded", notify: false }),
    renew_lease: () => {
      state.renewed = true;
      return { outcome: "recorded", notify: false };
    },
    verify_ledger: () => {
      // Like the backend: no data dir set up, no ledger to open.
      if (!state.setup.initialised) throw "no SMART data dir yet: run `smart init --root DIR`";
      return { ok: true, events: state.total, head: "ab", first_bad_seq: null, reason: null, scope: "new_events", checked_after: state.total - 3, whole_chain_verified_ms: null, whole_chain_running: false };
    },
    timeline: ({ offset, limit }) => {
      const rows = [];
      for (let i = offset; i < Math.min(state.total, offset + limit); i++) rows.push(row(state.total - i));
      return { total: state.total, offset, rows };
    },
    activity: () => [{ start_wall_ms: Date.now() - 3_600_000, events: 40, refusals: 3 }],
    ledger_tools: () => ["fs.scan"],
    event_detail: ({ seq }) => ({ row: row(seq), payload: { kind: "proposed" }, at_ms: 1, hash: "h", prev_hash: "p", state_before: "a", state_after: "b", hash_ok: true, link_ok: true, seal_ok: true, signature_ok: null, signature_error: null }),
    setup_state: () => state.setup,
    init_data_dir: ({ roots }) => {
      if (roots.some((r) => !r.startsWith("/"))) throw `${roots[0]} is not a full path: start it with / or ~/`;
      state.setup = { ...state.setup, initialised: true, roots };
      return state.setup;
    },
    fetch_model: ({ name, progress }) => {
      // The Channel's id: report two steps of progress through it, as the backend would.
      for (const done of [100, 491_400_032]) callbacks.get(progress.id ?? progress)?.({ message: { model: name, stage: "download", done, total: 491_400_032 }, index: done === 100 ? 0 : 1 });
      const m = state.setup.models.find((x) => x.name === name);
      m.status = "verified";
      return m;
    },
    get_settings: () => ({ hotkey: "CommandOrControl+Shift+Space", wake_word: false, wake_phrase: "hey smart", voice_output: false, overlay: "bottom" }),
    set_settings: ({ settings }) => {
      // As the backend does: saving restarts the voice worker.
      state.voice = { ...state.voice, state: "starting", detail: "starting the voice worker…" };
      return settings;
    },
    heartbeat: () => null,
    voice_status: () => state.voice,
    show_main: () => {
      state.shownMain = (state.shownMain ?? 0) + 1;
      return null;
    },
    push_to_talk: ({ down }) => {
      state.presses.push(down);
      return null;
    },
    slow_loop_view: () => ({ now_ms: state.now, ...state.slow }),
    bootstrap_answer: ({ text }) => {
      const b = state.slow.memory.bootstrap;
      if (!b || b.stage === "done") throw "bootstrap is not listening: type requests in the command box";
      if (!text.trim()) throw "the utterance is empty";
      (state.answers ??= []).push(text);
      return moveTo(NEXT[b.stage] ?? b.stage);
    },
    bootstrap_skip: () => moveTo("done", "ready_for_commitment"),
    bootstrap_consent: ({ consent }) => moveTo(consent === "listen_only" ? "listening" : "done", consent),
    bootstrap_check_in: () => {
      state.slow.memory.bootstrap = { stage: "check_in", prompt: PROMPTS.check_in, propose_only: false, snapshot: {}, sessions: 1, abbreviated: true, reentered: false };
      state.events++;
      return { outcome: recorded, stage: "check_in", prompt: PROMPTS.check_in, propose_only: false, turn: null };
    },
    propose_gate: ({ gate, severity, reason }) => {
      const verdict = { proposal: { reason, severity, suggested_gate: gate, source: "user_signal", at: state.now, origin: "person" }, verdict: "rejected", reason: "already committed: the stance is Execution" };
      state.slow.reads = [{ seq: 60, at_ms: state.now, trigger: "request", verdicts: [verdict] }, ...state.slow.reads];
      state.events++;
      return { outcome: recorded, verdict: "rejected", reason: verdict.reason };
    },
    perceive: () => {
      state.perceived++;
      if (state.perceived > 1) return { summary: null, correction: null, findings: [], took_ms: null, error: "the proposer failed: the worker did not answer within 120 s" };
      return { summary: "The conversation is drifting at L2; mood frustrated, trust eroding. Suggested stance: ground.", correction: "answer in one line", findings: ["perception.drift"], took_ms: 28_400, error: null };
    },
    "plugin:event|listen": ({ event, handler }) => {
      (state.listeners[event] ??= []).push(handler);
      return handler;
    },
    "plugin:event|unlisten": () => null,
  };
  const callbacks = new Map();
  let next = 1;
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener: () => {} };
  window.__TAURI_INTERNALS__ = {
    metadata: (() => { const l = window.location.hash === "#overlay" ? "overlay" : "main"; return { currentWindow: { label: l }, currentWebview: { windowLabel: l, label: l } }; })(),
    transformCallback: (cb) => {
      const id = next++;
      callbacks.set(id, cb);
      return id;
    },
    unregisterCallback: (id) => callbacks.delete(id),
    invoke: async (cmd, args) => {
      state.calls.push({ cmd, args });
      const h = handlers[cmd];
      if (!h) throw `no fake for ${cmd}`;
      return h(args ?? {});
    },
  };
  window.__fake = {
    state,
    pendingCall,
    emit(event, payload) {
      for (const id of state.listeners[event] ?? []) callbacks.get(id)?.({ event, id, payload });
    },
    advance(ms) {
      state.now += ms;
    },
  };
}

let passed = 0;
const expect = (cond, what) => {
  if (!cond) throw new Error(`expected: ${what}`);
  passed++;
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
let page;
try {
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.addInitScript(installFake);
  await page.goto(url);

  console.log("browser: the HUD shows the status and the lease's criteria");
  await page.getByText("Execution", { exact: true }).waitFor();
  expect((await page.locator(".stance-grid .current").textContent()) === "Execution", "current stance");
  expect(await page.getByText("inbox empty").isVisible(), "the lease's success criteria");
  expect((await page.getByTestId("verify-badge").textContent()).includes("100000 events"), "the verify badge");
  const previewsAsked = () => page.evaluate(() => window.__fake.state.calls.filter((c) => c.cmd === "pending_calls").length);
  const asked = await previewsAsked();
  await page.waitForTimeout(2500);
  expect((await previewsAsked()) === asked, "previews are not re-read on every poll while nothing waits anew");
  await page.getByTestId("renew-lease").click();
  await page.getByText("Lease renewed").waitFor();
  expect(await page.evaluate(() => window.__fake.state.renewed === true), "Renew asks the backend");

  console.log("browser: voice: the status line, the hold-to-talk button and the level meter");
  await page.getByTestId("voice-status").getByText("hold the hotkey to talk").waitFor();
  const mic = page.getByTestId("mic");
  expect(await mic.isEnabled(), "the microphone button is live while voice listens");
  await mic.dispatchEvent("pointerdown");
  await page.getByText("Listening…").waitFor();
  await mic.dispatchEvent("pointerup");
  await page.waitForFunction(() => window.__fake.state.presses.length === 2);
  expect(await page.evaluate(() => JSON.stringify(window.__fake.state.presses) === "[true,false]"), "press and release reach push_to_talk");
  await page.evaluate(() => window.__fake.emit("smart://hud", { corr: "v", event: "level", state: null, text: null, tool: null, args: null, outcome: null, source: null, model: null, reason: null, level: -12 }));
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="mic-level"]')?.getAttribute("value")) === 80);
  expect(true, "a level event fills the meter");

  console.log("browser: settings say what hears the wake phrase and how well");
  await page.evaluate(() => {
    window.__fake.state.voice = { ...window.__fake.state.voice, wake: '"hey smart", heard by whisper (measured here: 1–3 % of wake phrases missed)' };
  });
  await page.getByRole("button", { name: "Settings" }).click();
  const engine = page.getByTestId("wake-engine");
  await engine.getByText("heard by whisper").waitFor();
  expect((await engine.textContent()).includes("everything else said nearby is ignored"), "the wake word's promise and its measured rate");
  // What broke (found by the e2e): after saving, the HUD still said "hold the hotkey" while the
  // voice worker restarted, and a press in that time opened the HUD instead of the microphone.
  await page.getByTestId("settings").getByRole("button", { name: "Save" }).click();
  await page.getByTestId("settings").getByText("Saved").waitFor();
  await page.getByRole("button", { name: "HUD" }).click();
  const voiceLine = (await page.getByTestId("voice-status").textContent()) ?? "";
  expect(voiceLine.includes("starting the voice worker") && !voiceLine.includes("hold the hotkey"), `the HUD says voice is restarting once settings are saved (${voiceLine.trim()})`);
  await page.evaluate(() => {
    window.__fake.state.voice = { ...window.__fake.state.voice, state: "listening", detail: "hold the hotkey to talk (ggml-tiny.en.bin)" };
  });
  await page.getByTestId("voice-status").getByText("hold the hotkey to talk").waitFor();
  await page.getByTestId("command-input").waitFor();

  console.log("browser: live progress from the backend's events");
  await page.evaluate(() => window.__fake.emit("smart://hud", { corr: "x", event: "utterance", state: null, text: "tidy my inbox", tool: null, args: null, outcome: null, source: null, model: null, reason: null }));
  await page.evaluate(() => window.__fake.emit("smart://hud", { corr: "x", event: "state_changed", state: "reasoning", text: null, tool: null, args: null, outcome: null, source: null, model: null, reason: null }));
  await page.getByText("heard").waitFor();
  expect((await page.getByTestId("interaction-state").textContent()) === "Reasoning", "interaction state from events");

  console.log("browser: the dialog for a pending move plan");
  await page.getByTestId("command-input").fill("apply the plan");
  await page.getByTestId("command-send").click();
  const dialog = page.getByTestId("confirm-dialog");
  await dialog.waitFor();
  const text = await dialog.textContent();
  expect(text.includes("/home/ana/inbox/report.pdf") && text.includes("/home/ana/archive/report.pdf"), "moves from → to");
  expect(text.includes("120.6 KiB") && text.includes("already exists"), "sizes and an occupied destination");
  expect(/Approvable in 9s/.test(await page.getByTestId("countdown").textContent()), "the gate's countdown");
  expect(await dialog.getByRole("button", { name: "Approve" }).isDisabled(), "Approve disabled during the gate");
  expect(await page.evaluate(() => document.activeElement?.textContent) === "Deny", "focus starts on Deny");
  await page.screenshot({ path: join(OUT, "dialog-moves.png") });

  console.log("browser: Escape defers, Review brings it back");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Review" }).click();
  await dialog.waitFor();

  console.log("browser: approve once the backend's clock passes the gate");
  await page.evaluate(() => window.__fake.advance(10_000));
  await dialog.getByRole("button", { name: "Approve" }).waitFor({ state: "visible" });
  await page.waitForFunction(() => !document.querySelector(".dialog .approve")?.disabled, null, { timeout: 5000 });
  await dialog.getByRole("button", { name: "Approve" }).click();
  await dialog.waitFor({ state: "detached" });
  const decide = await page.evaluate(() => window.__fake.state.calls.find((c) => c.cmd === "decide")?.args);
  expect(decide?.pendingId === "pend-1" && decide?.callHash === "9f".repeat(32) && decide?.approve === true, "decide carries the shown hash");
  expect(await page.getByText("Approved and committed").isVisible(), "a notice");

  console.log("browser: the slow loop: verdicts with reasons, referred ones as suggestions, decisions, memory");
  const panel = page.getByTestId("slow-loop");
  await panel.getByText("Quarantine old logs, never delete them").waitFor();
  expect(await page.getByTestId("bootstrap-card").count() === 0, "no bootstrap card for a returning person");
  expect(!(await panel.textContent()).includes("Delete old logs outright"), "a superseded decision is hidden");
  await panel.getByLabel(/superseded \(1\)/).check();
  const old = panel.locator("[data-decision='1']");
  await old.waitFor();
  expect((await old.getAttribute("class")).includes("superseded") && (await old.textContent()).includes("superseded by 2"), "…and greyed out when shown");
  expect((await panel.locator("[data-decision='2']").textContent()).includes("supersession · evaluate gate"), "kind and gate of a decision");
  const verdicts = page.getByTestId("verdicts");
  expect((await verdicts.locator("tr[data-verdict=accepted]").textContent()).includes("execution pauses for the evaluation gate"), "an accepted verdict with its reason");
  const forYou = page.getByTestId("referred");
  expect((await forYou.textContent()).includes("the person keeps correcting the plan") && (await forYou.textContent()).includes("below high severity"), "a referred proposal is a suggestion for the person");
  expect(await panel.getByText("A calm, findable home folder").isVisible(), "a North Star");
  expect(await panel.getByText("Nothing is deleted without a quarantine first").isVisible(), "a principle");
  expect(await page.getByTestId("progress-stale").isVisible(), "stale progress is badged");
  expect((await page.getByTestId("progress").textContent()).includes("waiting on the backup"), "blockers");
  expect((await page.getByTestId("signals").textContent()).includes("too many questions"), "interaction signals");
  const arts = await page.getByTestId("artifacts").textContent();
  expect(arts.includes("Archive plan") && arts.includes("review needed") && arts.includes("index the reports"), "artifacts with freshness, and work orders");
  const history = page.getByTestId("history");
  const current = history.locator("[data-session='40']");
  expect((await current.textContent()).includes("3 committed · 1 refused · 1 asked for approval · 1 approved · 2 gate transitions") && (await current.getByText("now").isVisible()), "the current session, badged, with what was done");
  const yesterday = (await history.locator("[data-session='1']").textContent());
  expect(yesterday.includes("45m 00s") && yesterday.includes("1 undone") && yesterday.includes("1 emergency stop") && (await history.locator("[data-session='1'] .badge").count()) === 0, "an earlier session: its length and counts, not badged");
  expect((await page.getByTestId("gate-transitions").textContent()).includes("Sensemaking → Execution (commitment), 1 memory write"), "gate transitions in words");

  console.log("browser: proposing a gate as the person shows the controller's verdict");
  await page.getByLabel("Gate", { exact: true }).selectOption("commitment");
  await page.getByLabel("Severity").selectOption("medium");
  await page.getByLabel("Why", { exact: true }).fill("lock in the archive plan");
  await page.getByRole("button", { name: "Propose" }).click();
  await page.getByTestId("propose-result").getByText("Rejected: already committed").waitFor();
  const proposed = await page.evaluate(() => window.__fake.state.calls.find((c) => c.cmd === "propose_gate")?.args);
  expect(proposed?.gate === "commitment" && proposed?.severity === "medium" && proposed?.reason === "lock in the archive plan", "propose_gate carries the form");
  await verdicts.locator("tr[data-verdict=rejected]").getByText("lock in the archive plan").waitFor();
  expect(true, "the new verdict is in the table");

  console.log("browser: How is this going? shows the report, then an error as the answer");
  await page.getByRole("button", { name: "How is this going?" }).click();
  await page.getByTestId("perceive-result").getByText("drifting at L2").waitFor();
  expect((await page.getByTestId("perceive-result").textContent()).includes("Suggested correction: answer in one line"), "the correction");
  await page.getByRole("button", { name: "How is this going?" }).click();
  await page.getByTestId("perceive-result").getByText("did not answer within 120 s").waitFor();
  expect(true, "a failed perception read is shown, not thrown");
  await page.screenshot({ path: join(OUT, "slow-loop.png"), fullPage: true });

  console.log("browser: a returning person checks in through the card");
  await page.getByRole("button", { name: "Check in" }).click();
  const checkIn = page.getByTestId("bootstrap-card");
  await checkIn.getByText("I have context from before").waitFor();
  expect(await checkIn.getByTestId("propose-only").count() === 0, "the check-in does not restrict");
  await page.getByLabel("Your answer").fill("still on track");
  await page.getByLabel("Your answer").press("Enter");
  await checkIn.waitFor({ state: "detached" });
  expect(await page.getByRole("button", { name: "Check in" }).count() === 0, "no second check-in is offered");

  console.log("browser: a 100,000-event timeline is virtualised");
  await page.getByRole("button", { name: "Timeline" }).click();
  await page.locator("[data-seq='100000']").waitFor();
  const rendered = await page.locator(".rowbtn").count();
  expect(rendered > 5 && rendered < 80, `only rows in view are in the DOM (${rendered})`);
  const place = (seq) => page.locator(`[data-seq='${seq}']`).getAttribute("data-turn");
  expect((await place(100000)) === "first" && (await place(99999)) === "last" && (await place(99997)) === "middle", "one request's neighbouring rows are drawn as one group");
  await page.getByTestId("timeline-list").evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.locator("[data-seq='1']").waitFor({ timeout: 5000 });
  const offsets = await page.evaluate(() => window.__fake.state.calls.filter((c) => c.cmd === "timeline").map((c) => c.args.offset));
  expect(offsets.includes(99_900), `the last page was fetched (${offsets.join(",")})`);
  expect(!offsets.some((o) => o > 0 && o < 99_800), "pages in between were never fetched");
  await page.locator("[data-seq='1']").click();
  await page.getByText("Event 1 · proposed").waitFor();
  expect((await page.getByTestId("event-detail").textContent()).includes("hash ok"), "the detail's checks");
  await page.getByTestId("filter-kind").selectOption("committed");
  await page.waitForFunction(() => window.__fake.state.calls.some((c) => c.cmd === "timeline" && c.args.filter.kinds[0] === "committed"));
  expect(true, "a kind filter reaches the backend");
  expect((await page.getByTestId("activity-chart").locator("rect").count()) === 2, "the activity chart's bar (ok + refusals)");
  await page.getByTestId("turn-chip").first().click();
  await page.waitForFunction(() => window.__fake.state.calls.some((c) => c.cmd === "timeline" && /^c\d+$/.test(c.args.filter.corr ?? "")));
  expect(await page.getByTestId("all-requests").isVisible(), "a request's id filters the timeline to it, and the filter can be cleared");
  await page.screenshot({ path: join(OUT, "timeline.png") });

  expect(errors.length === 0, `no page errors (${errors.join("; ")})`);

  console.log("browser: first launch asks for folders, refuses a relative one, then offers the model");
  const fresh = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  fresh.on("pageerror", (e) => errors.push(e.message));
  await fresh.addInitScript(installFake);
  await fresh.goto(`${url}#fresh`);
  const onb = fresh.getByTestId("onboarding");
  await onb.waitFor();
  // Nothing has been recorded: no red badge, no stop with nothing to stop.
  expect((await fresh.getByTestId("verify-badge").textContent()).includes("no ledger yet"), "the header says there is no ledger yet");
  expect((await fresh.locator(".badge-verify.bad").count()) === 0, "no failed-ledger badge on a fresh data dir");
  expect((await fresh.getByTestId("emergency-stop").count()) === 0, "no emergency stop before there is anything to stop");
  await fresh.screenshot({ path: join(OUT, "onboarding-fresh-header.png") });
  expect((await onb.textContent()).includes("/home/ana/.local/share/smart"), "where the data will live");
  await fresh.getByLabel("Allowed folder 1").fill("Documents");
  await fresh.getByRole("button", { name: "Allow these folders" }).click();
  await fresh.getByText("is not a full path").waitFor();
  await fresh.getByLabel("Allowed folder 1").fill("/home/ana/Documents");
  await fresh.getByRole("button", { name: "Allow these folders" }).click();
  await fresh.getByRole("button", { name: "Download" }).first().waitFor();
  await fresh.screenshot({ path: join(OUT, "onboarding-model.png") });
  const voiceRow = fresh.getByTestId("voice-model");
  expect((await voiceRow.textContent()).includes("whisper-tiny.en"), "the speech model is offered too");
  await voiceRow.getByRole("button", { name: "Download" }).click();
  await voiceRow.getByText("verified").waitFor();
  await fresh.getByRole("button", { name: "Download" }).click();
  await fresh.getByRole("button", { name: "Start" }).waitFor();
  await fresh.getByRole("button", { name: "Start" }).click();
  await fresh.getByTestId("command-input").waitFor();
  expect(true, "onboarding ends in the HUD");
  await fresh.getByTestId("emergency-stop").waitFor();
  await fresh.getByText("ledger verified").waitFor();
  expect(true, "after onboarding the ledger is verified and the stop is there");
  expect(errors.length === 0, `no page errors (${errors.join("; ")})`);

  console.log("browser: the overlay follows a spoken turn and sends a waiting call to the HUD");
  const ov = await browser.newPage({ viewport: { width: 420, height: 160 } });
  ov.on("pageerror", (e) => errors.push(e.message));
  await ov.addInitScript(installFake);
  await ov.goto(`${url}#overlay`);
  await ov.getByTestId("overlay").waitFor();
  expect((await ov.getByTestId("command-input").count()) === 0, "the overlay is not the HUD");
  const hudEv = (fields) => ({ corr: "o", event: "state_changed", state: null, text: null, tool: null, args: null, outcome: null, source: null, model: null, reason: null, level: null, ...fields });
  const send = (fields) => ov.evaluate((p) => window.__fake.emit("smart://hud", p), hudEv(fields));
  await send({ state: "LISTENING" });
  await send({ event: "speech_start" });
  await send({ event: "level", level: -15 });
  await ov.getByTestId("overlay-state").getByText("Listening").waitFor();
  await ov.getByTestId("overlay-level").waitFor();
  await ov.screenshot({ path: join(OUT, "overlay-listening.png") });
  await send({ event: "speech_end" });
  await send({ state: "TRANSCRIBING" });
  await ov.getByText("Hearing").waitFor();
  await send({ event: "utterance", text: "quarantine the two old logs in Downloads" });
  await send({ state: "REASONING" });
  await ov.getByText("Thinking").waitFor();
  await send({ event: "proposal", tool: "apply.quarantine", source: "model", args: { paths: ["/home/ana/Downloads/a.log", "/home/ana/Downloads/b.log"] } });
  await ov.evaluate(() => {
    window.__fake.state.pending = [window.__fake.pendingCall()];
  });
  await send({ state: "AWAITING_CONFIRM" });
  await ov.getByText("Waiting for you").waitFor();
  await ov.getByTestId("overlay-gate").getByText(/approve in [0-9]+ s/).waitFor();
  expect(true, "a time gate's countdown on the waiting call");
  expect((await ov.getByTestId("overlay-proposal").textContent()) === "quarantine 2 files", "the proposal in words");
  expect((await ov.getByTestId("overlay-heard").textContent()).includes("two old logs"), "what was heard");
  await ov.screenshot({ path: join(OUT, "overlay-waiting.png") });
  await ov.getByTestId("overlay-review").click();
  await ov.waitForFunction(() => window.__fake.state.shownMain === 1);
  const overlayCalls = await ov.evaluate(() => window.__fake.state.calls.map((c) => c.cmd));
  expect(!overlayCalls.some((c) => ["decide", "undo", "emergency_stop", "say"].includes(c)), `the overlay decides nothing (${overlayCalls.join(", ")})`);
  await send({ event: "outcome", outcome: "refused" });
  await send({ state: "IDLE" });
  await ov.getByText("Refused").waitFor();
  await ov.screenshot({ path: join(OUT, "overlay-refused.png") });
  expect(errors.length === 0, `no page errors (${errors.join("; ")})`);

  console.log("browser: first contact: four questions, then how to go on, then skip");
  const first = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  first.on("pageerror", (e) => errors.push(e.message));
  await first.addInitScript(installFake);
  await first.goto(`${url}#bootstrap`);
  const bcard = first.getByTestId("bootstrap-card");
  await bcard.getByText("Imagine a ladder").waitFor();
  expect(await bcard.getByTestId("propose-only").isVisible(), "propose-only while bootstrap listens");
  expect(await bcard.getByText("Question 1 of 4").isVisible(), "which question");
  for (const [answer, next] of [
    ["about a 6", "keeps you from slipping"],
    ["my morning walk", "one step"],
    ["I would sleep better", "one small thing"],
    ["a reminder at ten", "keep listening, or"],
  ]) {
    await first.getByLabel("Your answer").fill(answer);
    await first.getByLabel("Your answer").press("Enter");
    await bcard.getByTestId("bootstrap-prompt").getByText(next).waitFor();
  }
  expect(await first.evaluate(() => window.__fake.state.answers.join("|")) === "about a 6|my morning walk|I would sleep better|a reminder at ten", "each answer reached the backend once");
  const consents = bcard.getByRole("group", { name: "How to go on" });
  expect((await consents.getByRole("button").allTextContents()).join("|") === "Keep listening|Offer ideas|I'm ready", "the three answers to the permission question");
  await first.screenshot({ path: join(OUT, "bootstrap-permission.png") });
  await consents.getByRole("button", { name: "Keep listening" }).click();
  await bcard.getByText("I'm listening").waitFor();
  expect(await first.evaluate(() => window.__fake.state.calls.find((c) => c.cmd === "bootstrap_consent")?.args.consent) === "listen_only", "Keep listening is listen_only");
  expect(await bcard.getByTestId("propose-only").isVisible(), "still propose-only while listening");
  await bcard.getByRole("button", { name: "Skip introduction" }).click();
  await bcard.waitFor({ state: "detached" });
  expect(await first.evaluate(() => window.__fake.state.calls.some((c) => c.cmd === "bootstrap_skip")), "Skip reaches the backend");
  expect(errors.length === 0, `no page errors (${errors.join("; ")})`);
  console.log(`browser: ${passed} checks passed`);
} catch (e) {
  console.error(`browser FAILED: ${e.message}`);
  if (page) await page.screenshot({ path: join(OUT, "failure.png") }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
