#pragma once
// The Predict tab's two pages of this folder, added beside its own (Rollout and predictions,
// Generate): Patching (patching_panel.hpp) and Logit lens (logit_lens_panel.hpp). Both read the
// overview the tab shows (the document's sentence, run whole), so the clean prompt is always
// the sentence the other pages show; the patching's answer A is the token the lens's line follows.

namespace qkv::ui {

class LogitLensPanel;
class PatchingPanel;
class PredictionView;

struct PatchingPages {
    PatchingPanel* patching = nullptr;
    LogitLensPanel* logitLens = nullptr;
};

// Adds the pages to `view`'s pages and keeps them on its overview.
PatchingPages addPatchingPages(PredictionView* view);

}  // namespace qkv::ui
