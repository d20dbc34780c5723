//! The TypeScript declarations of the command types, generated from the Rust ones.
//!
//! `ui/src/bindings.ts` is written by this test, never by hand: the types the web view reads are
//! the types the backend serialises. The test fails when the committed file differs from what
//! the Rust types produce, and says how to regenerate it (`SMART_UPDATE_BINDINGS=1 cargo test -p
//! smart-app bindings`), so a change on one side cannot silently drift from the other.

#![allow(clippy::panic)]

use crate::HudEvent;
use crate::hud::{PendingList, PendingView};
use crate::onboarding::{FetchProgress, ModelRow, SetupState};
use crate::preview::{FileRow, MoveRow, Preview};
use crate::reports::{Outcome, SayResult, StepView};
use crate::settings::{OverlayPlace, Settings};
use crate::slow_loop::{BootstrapResult, PerceiveResult, ProposeResult, SlowLoopView};
use crate::timeline::{ActivityBar, EventDetail, TimelineFilter, TimelinePage, TimelineRow, VerifyBadge, VerifyScope};
use crate::updates::{UpdateCheck, UpdateProgress};
use crate::voice::VoiceStatus;
use ts_rs::{Config, TS};

fn generate() -> String {
    // Millisecond times and sequence numbers fit a JS number for 285,000 years.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        smart_runtime::CallOutcome::decl(&cfg),
        smart_runtime::bus::BusEventKind::decl(&cfg),
        smart_kernel::Stance::decl(&cfg),
        smart_kernel::Horizon::decl(&cfg),
        // `StatusView` is not declared on its own: `Status` flattens it, and ts-rs writes its
        // fields into `Status` (a second declaration would be an unused copy).
        smart_kernel::status::LeaseView::decl(&cfg),
        smart_kernel::status::LeaseViewState::decl(&cfg),
        smart_kernel::status::GateView::decl(&cfg),
        smart_kernel::status::Usage::decl(&cfg),
        smart_kernel::status::PendingSummary::decl(&cfg),
        smart_kernel::status::ScopeView::decl(&cfg),
        smart_runtime::engine::Status::decl(&cfg),
        smart_runtime::TurnEnd::decl(&cfg),
        Outcome::decl(&cfg),
        StepView::decl(&cfg),
        SayResult::decl(&cfg),
        FileRow::decl(&cfg),
        MoveRow::decl(&cfg),
        Preview::decl(&cfg),
        PendingView::decl(&cfg),
        PendingList::decl(&cfg),
        TimelineFilter::decl(&cfg),
        TimelineRow::decl(&cfg),
        TimelinePage::decl(&cfg),
        EventDetail::decl(&cfg),
        VerifyBadge::decl(&cfg),
        VerifyScope::decl(&cfg),
        ActivityBar::decl(&cfg),
        HudEvent::decl(&cfg),
        ModelRow::decl(&cfg),
        SetupState::decl(&cfg),
        FetchProgress::decl(&cfg),
        Settings::decl(&cfg),
        OverlayPlace::decl(&cfg),
        VoiceStatus::decl(&cfg),
        UpdateCheck::decl(&cfg),
        UpdateProgress::decl(&cfg),
        BootstrapResult::decl(&cfg),
        ProposeResult::decl(&cfg),
        PerceiveResult::decl(&cfg),
        // The slow loop's panel: the memory view and the histories, down to the kernel's types
        // (`DecisionDraft` and `ArtifactDraft` are flattened into their records, so not declared).
        SlowLoopView::decl(&cfg),
        smart_runtime::slow_loop::MemoryView::decl(&cfg),
        smart_runtime::slow_loop::SlowMemory::decl(&cfg),
        smart_runtime::slow_loop::FastMemory::decl(&cfg),
        smart_runtime::slow_loop::Bridge::decl(&cfg),
        smart_runtime::slow_loop::BootstrapView::decl(&cfg),
        smart_runtime::slow_loop::ProposalRead::decl(&cfg),
        smart_runtime::slow_loop::GateTransition::decl(&cfg),
        smart_ledger::SessionSummary::decl(&cfg),
        smart_kernel::Millis::decl(&cfg),
        smart_kernel::GateAct::decl(&cfg),
        smart_kernel::GateProposal::decl(&cfg),
        smart_kernel::GateSource::decl(&cfg),
        smart_kernel::Severity::decl(&cfg),
        smart_kernel::SuggestedGate::decl(&cfg),
        smart_kernel::ProposedAction::decl(&cfg),
        smart_kernel::ReadTrigger::decl(&cfg),
        smart_kernel::gate_controller::Verdict::decl(&cfg),
        smart_kernel::gate_controller::VerdictKind::decl(&cfg),
        smart_kernel::gate_controller::Effect::decl(&cfg),
        smart_kernel::memory::DecisionRecord::decl(&cfg),
        smart_kernel::memory::DecisionKind::decl(&cfg),
        smart_kernel::memory::Confidence::decl(&cfg),
        smart_kernel::memory::Principle::decl(&cfg),
        smart_kernel::memory::PrincipleKind::decl(&cfg),
        smart_kernel::memory::NorthStar::decl(&cfg),
        smart_kernel::memory::Progress::decl(&cfg),
        smart_kernel::memory::InteractionSignals::decl(&cfg),
        smart_kernel::memory::ArtifactEntry::decl(&cfg),
        smart_kernel::memory::ArtifactKind::decl(&cfg),
        smart_kernel::memory::ArtifactStatus::decl(&cfg),
        smart_kernel::memory::Freshness::decl(&cfg),
        smart_kernel::work_order::WorkOrder::decl(&cfg),
        smart_kernel::bootstrap::Stage::decl(&cfg),
        smart_kernel::bootstrap::Snapshot::decl(&cfg),
        smart_kernel::bootstrap::LadderPosition::decl(&cfg),
        smart_kernel::bootstrap::Consent::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust command types by `src-tauri/src/bindings.rs`; do not edit.\n\
         // Regenerate: SMART_UPDATE_BINDINGS=1 cargo test -p smart-app bindings\n\n",
    );
    for d in decls {
        out.push_str("export ");
        out.push_str(&d);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn ui_bindings_match_the_rust_command_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings.ts");
    let want = generate();
    if std::env::var_os("SMART_UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is out of date with the Rust types; regenerate it with\n  SMART_UPDATE_BINDINGS=1 cargo test -p smart-app bindings",
        path.display()
    );
}
