// The backend's commands, typed. Every `invoke` the UI makes goes through here, so the command
// names and argument keys (Tauri maps camelCase here to the Rust snake_case parameters) live in
// one place; the types come from bindings.ts, which is generated from the Rust types.

import { Channel, invoke } from "@tauri-apps/api/core";
import type {
  ActivityBar,
  BootstrapResult,
  EventDetail,
  FetchProgress,
  ModelRow,
  Outcome,
  PendingList,
  PerceiveResult,
  ProposeResult,
  SayResult,
  Settings,
  SetupState,
  TimelineFilter,
  TimelinePage,
  UpdateCheck,
  UpdateProgress,
  VerifyBadge,
  VoiceStatus,
} from "./bindings";
import type { Consent, SlowLoopView } from "./bindings";
import type { StatusView } from "./status";

export const api = {
  status: () => invoke<StatusView>("get_status"),
  say: (text: string) => invoke<SayResult>("say", { text }),
  pending: () => invoke<PendingList>("pending_calls"),
  decide: (pendingId: string, callHash: string, approve: boolean) =>
    invoke<Outcome>("decide", { pendingId, callHash, approve }),
  emergencyStop: () => invoke<Outcome>("emergency_stop"),
  undo: (seq: number) => invoke<Outcome>("undo", { seq }),
  renewLease: () => invoke<Outcome>("renew_lease"),
  timeline: (filter: TimelineFilter, offset: number, limit: number) =>
    invoke<TimelinePage>("timeline", { filter, offset, limit }),
  eventDetail: (seq: number) => invoke<EventDetail>("event_detail", { seq }),
  verify: () => invoke<VerifyBadge>("verify_ledger"),
  activity: (filter: TimelineFilter, bucketMs: number) => invoke<ActivityBar[]>("activity", { filter, bucketMs }),
  tools: () => invoke<string[]>("ledger_tools"),
  setupState: () => invoke<SetupState>("setup_state"),
  initDataDir: (roots: string[]) => invoke<SetupState>("init_data_dir", { roots }),
  pickFolder: () => invoke<string | null>("pick_folder"),
  fetchModel: (name: string, onProgress: (p: FetchProgress) => void) => {
    const progress = new Channel<FetchProgress>();
    progress.onmessage = onProgress;
    return invoke<ModelRow>("fetch_model", { name, progress });
  },
  getSettings: () => invoke<Settings>("get_settings"),
  setSettings: (settings: Settings) => invoke<Settings>("set_settings", { settings }),
  heartbeat: () => invoke<void>("heartbeat"),
  voiceStatus: () => invoke<VoiceStatus>("voice_status"),
  pushToTalk: (down: boolean) => invoke<void>("push_to_talk", { down }),
  slowLoop: () => invoke<SlowLoopView>("slow_loop_view"),
  bootstrapAnswer: (text: string) => invoke<BootstrapResult>("bootstrap_answer", { text }),
  bootstrapSkip: () => invoke<BootstrapResult>("bootstrap_skip"),
  bootstrapConsent: (consent: Consent) => invoke<BootstrapResult>("bootstrap_consent", { consent }),
  bootstrapCheckIn: () => invoke<BootstrapResult>("bootstrap_check_in"),
  proposeGate: (gate: string, severity: string, reason: string) =>
    invoke<ProposeResult>("propose_gate", { gate, severity, reason }),
  perceive: () => invoke<PerceiveResult>("perceive"),
  checkForUpdate: () => invoke<UpdateCheck>("check_for_update"),
  /** Installs `version`, which the last check found; SMART restarts when it is done. */
  installUpdate: (version: string, onProgress: (p: UpdateProgress) => void) => {
    const progress = new Channel<UpdateProgress>();
    progress.onmessage = onProgress;
    return invoke<void>("install_update", { version, progress });
  },
  /** The overlay's one action: bring up the HUD (where the confirmation dialog is). */
  showMain: () => invoke<void>("show_main"),
};

/** Events the backend emits (see src-tauri/src/lib.rs, shell.rs, onboarding.rs). */
export const EVENTS = {
  hud: "smart://hud",
  pushToTalk: "smart://push-to-talk",
} as const;

export const EMPTY_FILTER: TimelineFilter = { kinds: [], tool: null, corr: null, from_wall_ms: null, to_wall_ms: null };
