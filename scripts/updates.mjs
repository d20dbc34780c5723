// The release feed for `tauri build`, read from the environment and never committed.
//
// The committed tauri.conf.json names no update endpoint, so a build made from it never checks
// for updates (src-tauri/src/updates.rs). A release sets SMART_UPDATE_FEED to the https URL of
// its feed (a latest.json as Tauri's updater reads it); the build then names that feed and makes
// the signed update packages the feed serves, which needs the release key's private half in
// TAURI_SIGNING_PRIVATE_KEY (Tauri reads it, and TAURI_SIGNING_PRIVATE_KEY_PASSWORD, itself).
// Its public half is plugins.updater.pubkey in tauri.conf.json.

/** The --config fragment naming the release feed, or null when this build has none. */
export function updaterConfig(env) {
  const feed = (env.SMART_UPDATE_FEED ?? "").trim();
  if (!feed) return null;
  let url;
  try {
    url = new URL(feed);
  } catch {
    throw new Error(`SMART_UPDATE_FEED is not a URL: ${JSON.stringify(feed)}`);
  }
  if (url.protocol !== "https:") {
    throw new Error(`SMART_UPDATE_FEED must be an https URL (the feed itself is not signed): ${JSON.stringify(feed)}`);
  }
  if (!(env.TAURI_SIGNING_PRIVATE_KEY ?? "").trim()) {
    throw new Error(
      "SMART_UPDATE_FEED is set but TAURI_SIGNING_PRIVATE_KEY is not: the update packages cannot be signed for the feed",
    );
  }
  return { plugins: { updater: { endpoints: [feed] } }, bundle: { createUpdaterArtifacts: true } };
}

/** The key ID (16 hex digits) of a minisign public key or signature, as Tauri stores them:
 * base64 of the minisign file's text, whose second line is base64 of the algorithm (2 bytes),
 * the key ID (8 bytes) and the key or signature. */
export function keyId(stored) {
  const text = Buffer.from(stored.trim(), "base64").toString("utf8");
  const raw = Buffer.from((text.split("\n")[1] ?? "").trim(), "base64");
  if (!text.startsWith("untrusted comment:") || raw.length < 10) {
    throw new Error("not a minisign public key or signature");
  }
  // Written as minisign writes it: the 8 bytes read as a little-endian number.
  return Buffer.from(raw.subarray(2, 10)).reverse().toString("hex").toUpperCase();
}

/** Refuses a release whose update packages are not all signed by the key the app trusts
 * (`pubkey`, plugins.updater.pubkey): the app would refuse every one of them. `signatures` are
 * the build's `.sig` files as { name, text }. */
export function checkReleaseSignatures(signatures, pubkey) {
  if (signatures.length === 0) throw new Error("the build signed no update packages");
  const trusted = keyId(pubkey);
  const wrong = signatures.filter((s) => keyId(s.text) !== trusted).map((s) => s.name);
  if (wrong.length > 0) {
    throw new Error(
      `signed by a key other than the release key in tauri.conf.json (${trusted}), so the app would refuse them: ${wrong.join(", ")}`,
    );
  }
}
