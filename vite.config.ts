/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";

// The HUD lives in ui/; the build goes to dist/ at the repository root, which is what
// tauri.conf.json's "frontendDist" points at.
export default defineConfig({
  root: "ui",
  // svelteTesting: component tests mount the browser build of Svelte (and clean up after each).
  plugins: [svelte({ configFile: false }), ...(process.env.VITEST ? [svelteTesting()] : [])],
  // Keep vite/vitest caches with the other npm files rather than in ui/.
  cacheDir: "../node_modules/.vite",
  clearScreen: false,
  server: {
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: "../dist",
    emptyOutDir: true,
    // WebKitGTK 2.40+ / WebView2 / Safari 15+: what Tauri v2 runs on.
    target: "es2021",
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
