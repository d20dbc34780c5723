import { mount } from "svelte";
import App from "./App.svelte";
import Overlay from "./Overlay.svelte";
import "./app.css";

const target = document.getElementById("app");
if (!target) {
  throw new Error("index.html has no #app element");
}

/** The window this page is in: Tauri says which; the browser tests say it with #overlay. */
function windowLabel(): string {
  const internals = (window as { __TAURI_INTERNALS__?: { metadata?: { currentWindow?: { label?: string } } } })
    .__TAURI_INTERNALS__;
  return internals?.metadata?.currentWindow?.label ?? (window.location.hash === "#overlay" ? "overlay" : "main");
}

export default windowLabel() === "overlay" ? mount(Overlay, { target }) : mount(App, { target });
