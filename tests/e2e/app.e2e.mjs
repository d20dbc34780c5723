// End-to-end: the real SMART app window (WebKitGTK) under Xvfb, driven over WebDriver
// (tauri-driver in front of WebKitWebDriver), over a real data dir prepared with the real CLI.
//
//   node tests/e2e/app.e2e.mjs        (scripts/e2e.sh builds everything and runs this in Xvfb)
//
// Environment: SMART_APP (the app binary, built with the UI embedded), SMART_CLI (the `smart`
// binary), TAURI_DRIVER, SMART_E2E_OUT (where screenshots go). Each step saves a screenshot, so
// a failure shows what the window looked like; the run fails on the first broken expectation.

import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync, existsSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const need = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set (scripts/e2e.sh sets it)`);
  return v;
};
const APP = need("SMART_APP");
const CLI = need("SMART_CLI");
const DRIVER = need("TAURI_DRIVER");
const OUT = need("SMART_E2E_OUT");
const PORT = Number(process.env.SMART_E2E_PORT ?? 4444);
const BASE = `http://127.0.0.1:${PORT}`;
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

mkdirSync(OUT, { recursive: true });
const tmp = realpathSync(mkdtempSync(join(tmpdir(), "smart-e2e-")));
const root = join(tmp, "home");
const data = join(tmp, "data");
mkdirSync(join(root, "docs"), { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let passed = 0;
const step = (name) => console.log(`e2e: ${name}`);
function expect(cond, what) {
  if (!cond) throw new Error(`expected: ${what}`);
  passed++;
}

// --- the data dir, through the real CLI -------------------------------------------------------
function smart(...args) {
  const out = execFileSync(CLI, ["--json", "--data-dir", data, ...args], { encoding: "utf8", cwd: root });
  return JSON.parse(out);
}
// Gates short enough to climb here; the L4 gate long enough to watch the dialog count down.
const L4_GATE_MS = 12_000;
writeFileSync(
  join(tmp, "policy.toml"),
  `[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = ${L4_GATE_MS}\nl4_cooldown_ms = 0\n`,
);
writeFileSync(join(root, "docs", "a.txt"), "a");
smart("init", "--root", root, "--policy", join(tmp, "policy.toml"), "--key-store", "file");
smart("lease", "draft", "--frame", "tidy the docs folder", "--horizon", "short", "--expires-in", "1h");
// The commitment records a decision; the person's proposal to commit again while committed is
// read by the gate controller and rejected, which changes nothing in the flow below.
const DECISION = "Quarantine old logs, never delete them";
smart("gate", "commitment", "--decision", DECISION, "--rationale", "a quarantine can be undone");
smart("proposals", "add", "--gate", "commitment", "--severity", "medium", "commit to the docs plan again");
smart("proposals", "read");
const verdict = smart("proposals").reads[0]?.verdicts[0];
if (verdict?.verdict !== "rejected") throw new Error(`setup: the proposal's verdict ${JSON.stringify(verdict)}`);
smart("call", "fs.scan", "--args", JSON.stringify({ path: join(root, "docs") }));
smart("call", "cluster.duplicates", "--args", JSON.stringify({ path: join(root, "docs") }));
const plan = smart("call", "propose.move", "--args", JSON.stringify({ moves: [{ from: join(root, "docs/a.txt"), to: join(root, "docs/b.txt") }] }));
const applied = smart("call", "apply.move", "--args", JSON.stringify({ proposal: plan.artifact }));
if (applied.outcome !== "committed") throw new Error(`setup: apply.move ${JSON.stringify(applied)}`);
const appliedAt = Date.now();
writeFileSync(join(root, "docs", "old.log"), "0123456789"); // 10 bytes
writeFileSync(join(root, "docs", "keep.log"), "keep me");

// --- WebDriver --------------------------------------------------------------------------------
async function wd(method, path, body) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}

/** tauri-driver, whose app window sees `dataDir` as its data dir (and `env` besides). */
function startDriver(dataDir, env = {}) {
  return spawn(DRIVER, ["--port", String(PORT), "--native-port", String(PORT + 1)], {
    env: { ...process.env, SMART_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
}

/**
 * A microphone for a machine without a sound card: a private PulseAudio server whose null
 * sink's monitor is the default source (as the voice worker's tests make one). Its env makes
 * the app's voice worker hear it.
 */
async function startMicrophone() {
  const dir = mkdtempSync(join(tmpdir(), "smart-e2e-pulse-"));
  const home = join(dir, "home");
  const run = join(dir, "run");
  mkdirSync(home, { recursive: true });
  mkdirSync(run, { recursive: true });
  const socket = join(dir, "native");
  const env = { ...process.env, HOME: home, PULSE_RUNTIME_PATH: run, XDG_RUNTIME_DIR: run };
  delete env.PULSE_SERVER;
  const child = spawn(
    "pulseaudio",
    ["-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=false", "--disallow-exit",
      "-L", `module-native-protocol-unix socket=${socket} auth-anonymous=1`, "-L", "module-null-sink sink_name=vsink", "-L", "module-always-sink"],
    { env, stdio: "ignore" },
  );
  const micEnv = { PULSE_SERVER: `unix:${socket}`, HOME: home };
  const pactl = (...args) => execFileSync("pactl", args, { env: { ...process.env, ...micEnv }, stdio: "pipe" });
  await waitFor("pulseaudio", async () => existsSync(socket) && (pactl("info"), true), 15_000);
  pactl("set-default-source", "vsink.monitor");
  return { child, env: micEnv };
}

/** xdotool, its output trimmed. */
const xdo = (...args) => execFileSync("xdotool", args, { encoding: "utf8" }).trim();
/** The X ids of the visible windows named exactly `name`. */
const visible = (name) => {
  try {
    return xdo("search", "--onlyvisible", "--name", `^${name}$`).split("\n").filter((l) => l.length > 0);
  } catch {
    return []; // xdotool exits 1 when nothing matches
  }
};
/**
 * Loud time in a 16 kHz mono WAV that `parec` recorded: the milliseconds of 20 ms frames above
 * −45 dBFS (a tone or speech; the null sink is silent otherwise).
 */
function loudMs(wav) {
  const bytes = readFileSync(wav);
  const at = bytes.indexOf("data");
  if (at < 0) throw new Error(`${wav} is not a WAV file`);
  const pcm = bytes.subarray(at + 8);
  let loud = 0;
  for (let f = 0; f + 640 <= pcm.length; f += 640) {
    let sum = 0;
    for (let i = f; i < f + 640; i += 2) sum += (pcm.readInt16LE(i) / 32768) ** 2;
    if (20 * Math.log10(Math.sqrt(sum / 320) + 1e-9) > -45) loud += 20;
  }
  return loud;
}

/** Records what the null sink plays (what a loudspeaker would) into `wav` until stopped. */
function recordOutput(env, wav) {
  const child = spawn(
    "parec",
    ["--device=vsink.monitor", "--rate=16000", "--channels=1", "--format=s16le", "--file-format=wav", wav],
    { env: { ...process.env, ...env }, stdio: "ignore" },
  );
  return {
    stop: () =>
      new Promise((r) => {
        child.once("exit", r);
        child.kill("SIGINT"); // parec finishes the WAV header on SIGINT
      }),
  };
}

let driver = startDriver(data);
let session = null;

/** The app processes still running (pgrep exits 1 when there are none). */
function appsRunning() {
  try {
    return execFileSync("pgrep", ["-f", APP], { encoding: "utf8" }).split("\n").filter((l) => l.trim() !== "");
  } catch {
    return [];
  }
}

async function cleanup() {
  if (session) await wd("DELETE", `/session/${session}`).catch(() => {});
  session = null;
  driver.kill("SIGTERM");
  await new Promise((r) => (driver.exitCode !== null || driver.signalCode !== null ? r() : driver.once("exit", r)));
  // The app closes after its driver: until it has, it still holds the global hotkey, and the
  // next app's grab fails ("HotKey already registered") — a CI run on a busy box lost the
  // push-to-talk step that way. Wait for it, and end it if it does not go.
  const end = Date.now() + 10_000;
  while (appsRunning().length > 0 && Date.now() < end) await sleep(100);
  for (const pid of appsRunning()) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
}

async function openSession() {
  await waitFor("tauri-driver", async () => (await fetch(`${BASE}/status`)).ok, 15_000);
  const s = await wd("POST", "/session", { capabilities: { alwaysMatch: { "tauri:options": { application: APP } } } });
  session = s.sessionId;
}

async function waitFor(what, fn, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ""}`);
}

const find = async (css) => (await wd("POST", `/session/${session}/element`, { using: "css selector", value: css }))[ELEMENT];
const findAll = async (css) =>
  (await wd("POST", `/session/${session}/elements`, { using: "css selector", value: css })).map((e) => e[ELEMENT]);
const text = async (css) => wd("GET", `/session/${session}/element/${await find(css)}/text`);
const click = async (css) => wd("POST", `/session/${session}/element/${await find(css)}/click`, {});
const attr = async (css, name) => wd("GET", `/session/${session}/element/${await find(css)}/attribute/${name}`);
const typeInto = async (css, s) => wd("POST", `/session/${session}/element/${await find(css)}/value`, { text: s });
const enabled = async (css) => wd("GET", `/session/${session}/element/${await find(css)}/enabled`);
const exists = async (css) => (await findAll(css)).length > 0;

async function shot(name) {
  // WebKit may not have repainted right after an action: wait two frames first. WebKit's
  // driver now and then answers this wait with "Could not parse script result" (seen once on a
  // fresh machine, right after the timeline re-rendered); the wait is only for the picture, so
  // that answer is tried again, up to three times.
  for (let tries = 3; tries > 0; tries--) {
    try {
      await wd("POST", `/session/${session}/execute/async`, {
        script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        args: [],
      });
      break;
    } catch (e) {
      if (!String(e.message).includes("Could not parse script result") || tries === 1) throw e;
      await sleep(200);
    }
  }
  const png = await wd("GET", `/session/${session}/screenshot`);
  writeFileSync(join(OUT, `${name}.png`), Buffer.from(png, "base64"));
}

async function say(utterance) {
  await typeInto("[data-testid=command-input]", utterance);
  await click("[data-testid=command-send]");
}

try {
  await openSession();

  step("the HUD comes up with the runtime's status");
  await waitFor("the HUD", () => exists("[data-testid=command-input]"));
  await waitFor("the stance", async () => (await text(".stance-grid .current")).length > 0);
  expect((await text(".stance-grid .current")) === "Execution", "stance Execution after the setup's calls");
  await waitFor("the verify badge", async () => (await text("[data-testid=verify-badge]")).includes("verified"));
  // No sound card here: the voice worker starts, loads whisper, finds no microphone, and the
  // HUD says so — typing carries on below.
  await waitFor("the voice status", async () => (await text("[data-testid=voice-status]")).includes("no microphone"), 60_000);
  expect((await enabled("[data-testid=mic]")) === false, "the hold-to-talk button is off without a microphone");
  await shot("01-hud");

  step("the slow-loop panel shows the decision and the gate controller's verdict");
  await waitFor("the decision", async () => (await text("[data-testid=decisions]")).includes(DECISION));
  expect((await text("[data-testid=decisions]")).includes("binding · commitment gate"), "the decision's kind and gate");
  const verdicts = await text("[data-testid=verdicts]");
  expect(verdicts.includes("rejected") && verdicts.includes("commit to the docs plan again") && verdicts.includes(verdict.reason), `the verdict with its reason (${verdicts})`);
  expect(!(await exists("[data-testid=bootstrap-card]")), "no bootstrap card for a ledger with a lease");
  expect(await exists("[data-testid=check-in]"), "the check-in is offered instead");
  await wd("POST", `/session/${session}/execute/sync`, { script: "document.querySelector('[data-testid=slow-loop]').scrollIntoView()", args: [] });
  await shot("01b-slow-loop");
  await wd("POST", `/session/${session}/execute/sync`, { script: "window.scrollTo(0, 0)", args: [] });

  step("a typed command that needs approval opens the dialog with its preview and countdown");
  await say("quarantine docs/old.log");
  await waitFor("the confirmation dialog", () => exists("[data-testid=confirm-dialog]"), 30_000);
  // The live line is fed by the backend's bus events: what was heard, the proposal, the outcome.
  const live = await text("[data-testid=live]");
  // The live line shows the request's id: the one the timeline finds it by (checked below).
  const shownRequest = (await text("[data-testid=live-request]")).replace("request", "").trim();
  expect(/^[0-9a-f]{8}$/.test(shownRequest), `the live line shows the request's id (${shownRequest})`);
  expect(live.includes("quarantine docs/old.log") && live.includes("fs.quarantine") && live.includes("pending"), `the live line (${live})`);
  const dialog = await text("[data-testid=confirm-dialog]");
  expect(dialog.includes("Approve fs.quarantine?"), "the dialog names the tool");
  expect(dialog.includes("L4") && dialog.includes("Tier 3"), "layer and tier shown");
  expect(dialog.includes(join(root, "docs/old.log")) && dialog.includes("10 B"), "the file and its size in the preview");
  const countdown = await text("[data-testid=countdown]");
  const left = Date.now() - appliedAt;
  expect(/Approvable in \d+s/.test(countdown) || left >= L4_GATE_MS, `a countdown (${countdown})`);
  const secs = Number(/Approvable in (\d+)s/.exec(countdown)?.[1] ?? 0);
  expect(secs <= Math.ceil((L4_GATE_MS - left) / 1000) + 1, `the countdown agrees with the gate (${countdown}, ${left} ms since L3)`);
  expect((await enabled(".dialog .approve")) === (secs === 0), "Approve disabled while the gate counts down");
  const shownHash = await text("[data-testid=call-hash]");
  const cliPending = smart("pending").pending;
  expect(cliPending.length === 1 && cliPending[0].call_hash === shownHash, "the hash shown is the pending call's hash");
  await shot("02-dialog-countdown");

  step("approve once the gate opens");
  await waitFor("Approve enabled", () => enabled(".dialog .approve"), L4_GATE_MS + 10_000);
  expect((await text("[data-testid=countdown]")).includes("Approvable now"), "countdown reached zero");
  await shot("03-dialog-ready");
  await click(".dialog .approve");
  await waitFor("the dialog to close", async () => !(await exists("[data-testid=confirm-dialog]")));
  expect(!existsSync(join(root, "docs/old.log")), "the approved quarantine moved the file");

  step("the timeline shows the commit and the approval's valid signature");
  await click("nav .tab:nth-child(2)");
  await waitFor("timeline rows", () => exists("[data-kind=approved]"));
  expect(await exists("[data-kind=committed]"), "a committed row");
  await click("[data-kind=approved]");
  await waitFor("the signature check", async () => (await text("[data-testid=signature]")).includes("signature valid"));
  expect((await text("[data-testid=event-detail]")).includes(shownHash), "the signed call hash in the approval's payload");
  await shot("04-timeline-signature");

  step("the request's id finds the whole request: the proposal, the wait, the approval, the receipt");
  // The approval joined the request that made the call wait (one id from the typed words on).
  const corr = await attr("[data-kind=approved]", "data-corr");
  expect(/^[0-9a-f]{16}$/.test(corr ?? ""), `a request id on the row (${corr})`);
  expect(corr.startsWith(shownRequest), `the id the live line showed (${shownRequest}) is the request's (${corr})`);
  expect((await attr("[data-kind=pending]", "data-corr")) === corr, "the pending row is the same request");
  const turnEvents = smart("ledger", "show", "--corr", corr).events;
  const kindsOfTurn = turnEvents.map((e) => e.kind);
  expect(["proposed", "pending", "approved", "committed"].every((k) => kindsOfTurn.includes(k)), `the CLI finds the request's steps (${kindsOfTurn})`);
  await click("[data-testid=show-turn]");
  await waitFor("the request alone", async () => (await text("[data-testid=timeline-total]")) === `${turnEvents.length} events`);
  const shownCorrs = await Promise.all((await findAll("[data-corr]")).map((id) => wd("GET", `/session/${session}/element/${id}/attribute/data-corr`)));
  expect(shownCorrs.length === turnEvents.length && shownCorrs.every((c) => c === corr), `only the request's rows (${shownCorrs.length})`);
  await shot("04b-timeline-request");
  // The request as one group: folded to its newest row, and opened again.
  await click("[data-testid=turn-fold]");
  await waitFor("the request folded", async () => (await findAll("[data-corr]")).length === 1);
  expect((await text("[data-testid=turn-fold]")).trim() === `▸ ${turnEvents.length}`, "the folded row counts the request's events");
  await click("[data-testid=turn-fold]");
  await waitFor("the request open again", async () => (await findAll("[data-corr]")).length === turnEvents.length);
  await click("[data-testid=all-requests]");
  await waitFor("every request again", async () => !(await exists("[data-testid=all-requests]")));

  step("deny leaves the file in place");
  await click("nav .tab:nth-child(1)");
  await say("quarantine docs/keep.log");
  await waitFor("the second dialog", () => exists("[data-testid=confirm-dialog]"), 30_000);
  await shot("05-dialog-deny");
  await click(".dialog .deny");
  await waitFor("the dialog to close", async () => !(await exists("[data-testid=confirm-dialog]")));
  expect(existsSync(join(root, "docs/keep.log")), "a denied call changed nothing");
  const denied = smart("ledger", "show", "--kind", "denied").events;
  expect(denied.length === 1 && denied[0].payload.signal.signature, "a signed denial in the ledger");

  step("the emergency stop resets the stance");
  await click("[data-testid=emergency-stop]");
  await waitFor("Sensemaking", async () => (await text(".stance-grid .current")) === "Sensemaking");
  expect(smart("status").stance === "sensemaking", "the kernel agrees: sensemaking");
  expect(smart("status").lease === null, "the lease was dropped");
  // The emergency gate logs its own decision; the panel re-reads after the stop.
  await waitFor("the emergency decision", async () => (await text("[data-testid=decisions]")).includes("Emergency stop"));
  expect(true, "the panel shows the emergency decision");
  await shot("06-emergency-stop");

  step("the ledger still verifies");
  expect(smart("ledger", "verify").ok === true, "smart ledger verify ok");

  step("a first run on an empty data dir tells the truth: no ledger yet, nothing to stop");
  await cleanup();
  const fresh = join(tmp, "fresh-data");
  driver = startDriver(fresh);
  await openSession();
  await waitFor("the first-run flow", () => exists("[data-testid=onboarding]"));
  await waitFor("the header's ledger line", async () => (await text("[data-testid=verify-badge]")).includes("no ledger yet"));
  expect(!(await exists(".badge-verify.bad")), "no failed-ledger badge before there is a ledger");
  expect(!(await exists("[data-testid=emergency-stop]")), "no emergency stop before there is anything to stop");
  await shot("00-first-run");

  step("push-to-talk shows the overlay and the focus stays where the person was working");
  await cleanup();
  // A lease again after the emergency stop, and the layers below L4 climbed, so that a spoken
  // compaction waits for approval (as the first one did when typed).
  smart("lease", "draft", "--frame", "compact the docs folder", "--horizon", "short", "--expires-in", "1h");
  smart("gate", "commitment", "--decision", "Compact the docs folder", "--rationale", "an archive can be undone");
  smart("call", "fs.scan", "--args", JSON.stringify({ path: join(root, "docs") }));
  smart("call", "cluster.duplicates", "--args", JSON.stringify({ path: join(root, "docs") }));
  const plan2 = smart("call", "propose.move", "--args", JSON.stringify({ moves: [{ from: join(root, "docs/b.txt"), to: join(root, "docs/c.txt") }] }));
  const applied2 = smart("call", "apply.move", "--args", JSON.stringify({ proposal: plan2.artifact }));
  if (applied2.outcome !== "committed") throw new Error(`voice setup: apply.move ${JSON.stringify(applied2)}`);
  const mic = await startMicrophone();
  try {
    driver = startDriver(data, mic.env);
    await openSession();
    await waitFor("voice listening", async () => (await text("[data-testid=voice-status]")).includes("hold the hotkey"), 90_000);
    expect(visible("SMART overlay").length === 0, "the overlay is hidden while nothing is said");
    // Another application has the focus: a plain X window.
    const holder = spawn("xmessage", ["-title", "smart-e2e-focus", "another application"], { stdio: "ignore" });
    try {
      const id = await waitFor("the other window", () => visible("smart-e2e-focus")[0], 10_000);
      xdo("windowfocus", "--sync", id);
      const before = xdo("getwindowfocus");
      expect(before === id, `the other window has the focus (${before} vs ${id})`);
      xdo("keydown", "ctrl+shift+space");
      const overlayId = await waitFor("the overlay to show", () => visible("SMART overlay")[0], 10_000);
      expect(xdo("getwindowfocus") === before, "holding push-to-talk did not move the focus");
      const geo = xdo("getwindowgeometry", overlayId);
      await sleep(800);
      xdo("keyup", "ctrl+shift+space");
      // The press is silence: nothing heard, the turn ends, the overlay goes a few seconds later.
      await waitFor("the overlay to hide after the turn", () => visible("SMART overlay").length === 0, 30_000);
      expect(xdo("getwindowfocus") === before, "after the turn the focus is still where it was");
      expect(geo.includes("Geometry: 420x"), `the overlay's size, not the HUD's (${geo})`);
    } finally {
      holder.kill("SIGTERM");
    }

    step("say it back: spoken replies on, in the settings");
    await click("nav .tab:nth-child(3)");
    await waitFor("the settings", () => exists("[data-testid=voice-output]"));
    const speaks = await wd("GET", `/session/${session}/element/${await find("[data-testid=voice-output]")}/selected`);
    if (!speaks) await click("[data-testid=voice-output]");
    await click("[data-testid=settings] button[type=submit]");
    await waitFor("the settings saved", async () => (await text("[data-testid=settings]")).includes("Saved"));

    step("updates: a build from the repo names no release feed and says so");
    await click("[data-testid=check-update]");
    await waitFor("the update check's answer", async () =>
      (await text("[data-testid=updates]")).includes("names no release feed, so it never checks for updates"),
    );
    expect(!(await exists("[data-testid=install-update]")), "nothing to install without a feed");
    await click("nav .tab:nth-child(1)");
    // Saving restarts the voice worker with the new settings.
    await waitFor("voice listening again", async () => (await text("[data-testid=voice-status]")).includes("hold the hotkey"), 90_000);

    const main = await wd("GET", `/session/${session}/window`);
    const inOverlay = async (fn) => {
      const handles = await wd("GET", `/session/${session}/window/handles`);
      const other = handles.find((h) => h !== main);
      if (!other) throw new Error(`no overlay window among ${handles.length} handle(s)`);
      await wd("POST", `/session/${session}/window`, { handle: other });
      try {
        return await fn();
      } finally {
        await wd("POST", `/session/${session}/window`, { handle: main });
      }
    };
    // The DOM's text, not WebDriver's rendered text: the overlay fades out (opacity 0) before
    // it is hidden, and WebDriver reads a transparent element as empty.
    const overlayText = (css) =>
      inOverlay(() =>
        wd("POST", `/session/${session}/execute/sync`, {
          script: "return document.querySelector(arguments[0])?.textContent?.trim() ?? '';",
          args: [css],
        }),
      );

    /**
     * One spoken turn, as a person has it: hold the hotkey, say `utterance` (espeak-ng into
     * the microphone), let go. The overlay must end on `label` and show `reply` as said aloud,
     * and the loudspeaker (the null sink) must have played the earcon and about that much speech.
     */
    async function spokenTurn(name, utterance, label, reply, whileShown = async () => {}) {
      const wav = join(tmp, `${name}.wav`);
      execFileSync("espeak-ng", ["-v", "en-us", "-w", wav, utterance]);
      xdo("keydown", "ctrl+shift+space");
      await waitFor("the overlay to show", () => visible("SMART overlay")[0], 10_000);
      await sleep(800); // the listening earcon plays first
      const listening = await overlayText("[data-testid=overlay-state]");
      expect(listening === "Listening", `${name}: the overlay listens while the key is held (${listening}; the HUD: ${await text("[data-testid=live]")})`);
      execFileSync("paplay", ["--device=vsink", wav], { env: { ...process.env, ...mic.env } });
      await sleep(300);
      const played = join(OUT, `${name}.played.wav`);
      const rec = recordOutput(mic.env, played);
      await sleep(200);
      xdo("keyup", "ctrl+shift+space");
      const said = await waitFor(`${name}: the overlay to show the reply said aloud`, () => overlayText("[data-testid=overlay-spoken]"), 60_000).catch(
        async (e) => {
          const overlay = await overlayText("[data-testid=overlay]").catch((x) => `(unreadable: ${x.message})`);
          throw new Error(`${e.message}; the overlay showed ${JSON.stringify(overlay)}, the HUD ${JSON.stringify(await text("[data-testid=live]"))}`);
        },
      );
      const state = await overlayText("[data-testid=overlay-state]");
      const heard = await overlayText("[data-testid=overlay-heard]");
      await inOverlay(() => shot(`voice-${name}`)).catch(() => {});
      expect(state === label, `${name}: the overlay ends on ${label} (${state})`);
      await whileShown();
      // The reply plays to its end (a few seconds at most) before the recording stops.
      await sleep(reply.split(" ").length * 450 + 1_500);
      await rec.stop();
      const loud = loudMs(played);
      console.log(`e2e: ${name}: heard ${heard}, overlay ${state}, said ${said}, ${loud} ms of sound played`);
      expect(said === `Said: “${reply}”`, `${name}: the overlay shows what was said aloud (${said})`);
      const words = reply.split(" ").length;
      // An earcon (≥ 60 ms) and the reply (espeak-ng: about 360 ms a word; allow half).
      expect(loud >= 60 + words * 180 && loud <= 2_000 + words * 800, `${name}: ${loud} ms of earcon and speech for ${JSON.stringify(reply)}`);
      await waitFor(`${name}: the overlay to hide`, () => visible("SMART overlay").length === 0, 30_000);
    }

    // The person is working in another application when the call comes to wait for them.
    const working = spawn("xmessage", ["-title", "smart-e2e-focus", "another application"], { stdio: "ignore" });
    try {
      const other = await waitFor("the other window", () => visible("smart-e2e-focus")[0], 10_000);
      xdo("windowfocus", "--sync", other);
      await spokenTurn("pending", "compress the docs folder", "Waiting for you", "That needs your approval.", async () => {
        step("the overlay's 'waiting for you' brings up the dialog in the main window");
        expect(xdo("getwindowfocus") === other, "a waiting call did not take the focus by itself");
        await inOverlay(() => click("[data-testid=overlay-review]"));
        const hud = visible("SMART")[0];
        await waitFor("the HUD to take the focus", () => xdo("getwindowfocus") === hud, 10_000);
        await waitFor("the confirmation dialog in the main window", () => exists("[data-testid=confirm-dialog]"), 20_000);
        expect((await text("[data-testid=confirm-dialog]")).includes("fs.compact"), "the dialog is the spoken call's");
      });
    } finally {
      working.kill("SIGTERM");
    }
    await spokenTurn("emergency", "stop", "Stopped", "Stopped.");
    await waitFor("Sensemaking after the spoken stop", async () => (await text(".stance-grid .current")) === "Sensemaking");
    expect(!(await exists("[data-testid=confirm-dialog]")), "the stop cancelled the waiting call");
    await spokenTurn("refused", "compress the docs folder", "Refused", "Refused: it needs a commitment lease first.");
    await spokenTurn("committed", "scan the docs folder", "Done", "Done.");
  } finally {
    await cleanup();
    mic.child.kill("SIGTERM");
  }
  console.log(`e2e: ${passed} checks passed; screenshots in ${OUT}`);
  await cleanup();
  process.exit(0);
} catch (e) {
  console.error(`e2e FAILED: ${e.message}`);
  if (session) await shot("failure").catch(() => {});
  await cleanup();
  process.exit(1);
}
