#pragma once
// The student guide's tour as data: one row per question students ask about multi-head
// attention, each with the app state that answers it (an example, a tab, a head, a token), the
// place on screen to look at, and the equation of "Attention Is All You Need" it implements.
// The tour (student_guide.hpp) only walks this table; tests walk it too, so a step cannot be
// shown without being tested.

#include <QString>

#include <vector>

namespace qkv::ui {

// The places on screen a step points at (guide_targets.hpp finds the widget).
enum class GuideTarget {
    MatricesCanvas,  // the Matrices tab's figure: X, Q, K, V, Q_i, K_i, V_i, A_i, Concat, W^O
    StepCanvas,      // the Steps tab's figure: q, k, scores, softmax, values, output
    TargetSentence,  // the controls' Target sentence
    FactorProduct,   // the Factored tab's W_i^Q · (W_i^K)^T = W_i
    FusedLayout,     // the Factored tab's fused W^Q split into heads
    CostTable,       // the Costs tab's table of parameters and FLOPs
    HeadsGrid,       // the Heads tab's grid of attention maps
    ModelGrid,       // the Model tab's grid: every layer's heads, named by their roles
    Predictions,     // the Predict tab's next-token probabilities, every head on beside heads off
    CircuitsHead,    // the Circuits tab's page of one head: its QK and OV circuits and OV eigenvalues
    PatchingGrids,   // the Predict tab's Patching page: the heads and residual grids
};

// The part of the target that answers the question, outlined instead of the whole widget.
enum class GuidePart {
    Whole,
    ValueRows,     // the Steps figure: the value rows v_j and their weighted sum
    QueryAndHead,  // the Matrices figure: Q and the block Q_i cut from it
};

// The model a step opens instead of an example.
enum class GuideModel {
    None,
    Demo,  // File > Examples' trained model (docs/demo-model), opened as that menu opens it
};
// What the guide's panel measures on a model step and says beside the state (learned_heads_text.hpp,
// circuits_text.hpp).
enum class GuideMeasure {
    Roles,     // the heads named previous-token and induction heads, with their scores
    Circuits,  // the strongest induction head's OV circuit and previous-token head's QK circuit
    Patching,  // the Patching page's grids: the heads carrying the answer, where it enters the stream
};
// Heads a step switches off in the whole model (the Model and Predict tabs' set).
enum class GuideHeadsOff {
    None,                // every head on
    StrongestInduction,  // the head the Model tab names induction head with the highest score
};

// What a step sets up, through the paths the menus and views use.
struct GuideState {
    QString example;  // Example::id, applied as a scenario (one undo step) unless already there
    QString tab;      // ResultView::id()
    int head = 0;     // 0-based, as HeadSelection
    int query = 0;    // the query token's row
    int key = 0;      // the key token's column
    GuideModel model =
        GuideModel::None;  // instead of an example: opened as a new document (asking first) unless already there
    GuideHeadsOff headsOff = GuideHeadsOff::None;  // with a model only
    GuideMeasure measure = GuideMeasure::Roles;    // with a model and every head on
    // With a model: the target sentence it reads (typed as one undo step unless already there;
    // empty: as it is) and the corrupted prompt the Patching page patches from it (empty: none).
    QString sentence;
    QString corrupted;
};

struct GuideStep {
    QString title;     // the question, plain text
    QString text;      // rich text: the answer in a few sentences, naming the place on screen
    QString equation;  // rich text: what the place computes
    GuideState state;
    GuideTarget target;
    QString targetName;  // plain text: the place, in words ("the Target sentence")
    GuidePart part = GuidePart::Whole;
};

// In tour order.
const std::vector<GuideStep>& guideSteps();

}  // namespace qkv::ui
