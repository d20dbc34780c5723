// Code-signing settings for `tauri build`, read from the environment and never committed.
//
// macOS: Tauri reads APPLE_SIGNING_IDENTITY (and APPLE_CERTIFICATE, APPLE_CERTIFICATE_PASSWORD,
// APPLE_ID, APPLE_PASSWORD, APPLE_TEAM_ID for notarization) itself; nothing to add here.
// Windows: Tauri's certificate settings live only in its config, so the thumbprint of a
// certificate in the build machine's store, and the timestamp server, come from
// SMART_WINDOWS_CERTIFICATE_THUMBPRINT and SMART_WINDOWS_TIMESTAMP_URL as one more --config.
// Without them a package is built unsigned, and says so.

/** The --config fragment for signing, or null when nothing is to be signed on Windows. */
export function windowsSigningConfig(env) {
  const thumbprint = (env.SMART_WINDOWS_CERTIFICATE_THUMBPRINT ?? "").trim();
  if (!thumbprint) return null;
  if (!/^[0-9A-Fa-f]{40}$/.test(thumbprint)) {
    throw new Error(
      `SMART_WINDOWS_CERTIFICATE_THUMBPRINT is not a certificate's SHA-1 thumbprint (40 hex digits): ${JSON.stringify(thumbprint)}`,
    );
  }
  const timestampUrl = (env.SMART_WINDOWS_TIMESTAMP_URL ?? "http://timestamp.digicert.com").trim();
  if (!/^https?:\/\//.test(timestampUrl)) {
    throw new Error(`SMART_WINDOWS_TIMESTAMP_URL is not an http(s) URL: ${JSON.stringify(timestampUrl)}`);
  }
  return {
    bundle: { windows: { certificateThumbprint: thumbprint.toUpperCase(), digestAlgorithm: "sha256", timestampUrl } },
  };
}
