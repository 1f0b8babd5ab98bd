#include "ui/guide/guide_steps.hpp"

#include <QCoreApplication>

#include "ui/circuits/circuits_view.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui {
namespace {
// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::GuideSteps)
};

// Token positions below are those of the examples' sentences (resources/examples):
//   decoder target: the0 cat1 saw2 the3 dog4 and5 the6 dog7 saw8 the9 cat10 .11
//   translation target (queries): Le0 chat1 noir2 ...; source (keys): The0 black1 cat2 ...

// Q, K and V in self-attention, drawn as the data flows (the paper's Figure 2, live).
GuideStep queriesKeysValues()
{
    return {Text::tr("What are Q, K and V?"),
            Text::tr("In self-attention all three come from one sentence X, one row per token. Each row of "
                     "<b>Q</b> asks a question, each row of <b>K</b> is what a token offers to be matched "
                     "against, and <b>V</b> is what it passes on. The <b>Matrices</b> tab draws X, then Q, K "
                     "and V with head i's columns outlined."),
            Text::tr("<i>Q</i> = <i>XW</i><sup>Q</sup>,&nbsp; <i>K</i> = <i>XW</i><sup>K</sup>,&nbsp; "
                     "<i>V</i> = <i>XW</i><sup>V</sup>"),
            {QStringLiteral("decoder"), MatricesView::kId, 0, 4, 3},
            GuideTarget::MatricesCanvas,
            Text::tr("the Matrices tab's figure")};
}

// V is what gets mixed: the weighted sum of value rows (equation 1, row by row).
GuideStep whatIsV()
{
    return {Text::tr("So what exactly is V?"),
            Text::tr("Q and K only decide the weights a<sub>ij</sub>. V is what is mixed: "
                     "v<sub>j</sub> = x<sub>j</sub>W<sub>i</sub><sup>V</sup> is one row per key, and the "
                     "head's output for query i is their weighted average: steps ⑦ and ⑧ of the <b>Steps</b> tab, "
                     "after the softmax (outlined)."),
            Text::tr("Attention(<i>Q</i>, <i>K</i>, <i>V</i>) = softmax(<i>QK</i><sup>T</sup>/√<i>d</i><sub>k</sub>)"
                     "<i>V</i><br>out<sub>i</sub> = Σ<sub>j</sub> <i>a</i><sub>ij</sub> <i>v</i><sub>j</sub>"),
            {QStringLiteral("decoder"), StepView::kId, 1, 10, 1},
            GuideTarget::StepCanvas,
            Text::tr("the Steps tab: the value rows and their weighted sum"),
            GuidePart::ValueRows};
}

// Cross-attention: the sentence being produced asks, the other one answers.
GuideStep crossAttentionQueries()
{
    return {Text::tr("In cross-attention, which sentence gives Q?"),
            Text::tr("The sentence being produced asks: the <b>Target</b> sentence (French) gives the queries, "
                     "the Source (English) gives the keys and values. In the heatmaps, rows are French queries "
                     "and columns English keys. In a real Transformer, K and V come from the encoder's output "
                     "and Q from the decoder layer below."),
            Text::tr("<i>Q</i> = <i>X</i><sub>target</sub><i>W</i><sup>Q</sup>,&nbsp; "
                     "<i>K</i> = <i>X</i><sub>source</sub><i>W</i><sup>K</sup>,&nbsp; "
                     "<i>V</i> = <i>X</i><sub>source</sub><i>W</i><sup>V</sup>"),
            {QStringLiteral("translation"), HeadsView::kId, 0, 1, 2},
            GuideTarget::TargetSentence,
            Text::tr("the Target sentence, left")};
}

// Two thin factors hold the d_model x d_model matrix the scores use.
GuideStep twoThinMatrices()
{
    return {Text::tr("Why two thin matrices per head?"),
            Text::tr("The scores only use the product W<sub>i</sub>, a d<sub>model</sub> × d<sub>model</sub> "
                     "matrix of rank at most d<sub>k</sub>. Two thin d<sub>model</sub> × d<sub>k</sub> factors "
                     "hold it in 2·d<sub>model</sub>·d<sub>k</sub> numbers instead of d<sub>model</sub>². "
                     "The price: each head compares in at most d<sub>k</sub> dimensions; the h heads together reach "
                     "d<sub>model</sub>. Head 1 here has rank 2: see its <b>Factored W_i</b> product and spectrum."),
            Text::tr("<i>W</i><sub>i</sub> = <i>W</i><sub>i</sub><sup>Q</sup>(<i>W</i><sub>i</sub><sup>K</sup>)"
                     "<sup>T</sup>,&nbsp; <i>Q</i><sub>i</sub><i>K</i><sub>i</sub><sup>T</sup> = "
                     "<i>X W</i><sub>i</sub><i>X</i><sup>T</sup>,&nbsp; rank ≤ <i>d</i><sub>k</sub>"),
            {QStringLiteral("low-rank"), FactoredView::kId, 0, 0, 0},
            GuideTarget::FactorProduct,
            Text::tr("the product W_i^Q · (W_i^K)^T = W_i")};
}

// What the factoring saves, counted per head and per layer.
GuideStep whatItSaves()
{
    return {Text::tr("What do the thin matrices save?"),
            Text::tr("The <b>Costs</b> tab counts it: per head, two factors cost 2·d<sub>model</sub>·"
                     "d<sub>k</sub> parameters where a full W<sub>i</sub> costs d<sub>model</sub>², and the "
                     "table gives every formula, per head and per layer, with the FLOPs of the scores."),
            Text::tr("2 <i>d</i><sub>model</sub> <i>d</i><sub>k</sub> &lt; <i>d</i><sub>model</sub>²&nbsp; ⇔&nbsp; "
                     "<i>h</i> &gt; 2"),
            {QStringLiteral("low-rank"), CostsView::kId, 0, 0, 0},
            GuideTarget::CostTable,
            Text::tr("the table of parameters and FLOPs")};
}

// One fused W^Q, its columns split by heads (section 3.2.2's W_i^Q).
GuideStep oneMatrixManyHeads()
{
    return {Text::tr("How does one W^Q split into heads?"),
            Text::tr("Implementations keep one d<sub>model</sub> × d<sub>model</sub> W<sup>Q</sup>; head i "
                     "owns d<sub>k</sub> of its columns. The <b>fused W^Q</b> figure outlines each head's "
                     "block, head 2's in the selection colour. Changing h re-partitions the same matrix."),
            Text::tr("<i>W</i><sub>i</sub><sup>Q</sup> = <i>W</i><sup>Q</sup>[:, (<i>i</i>−1)<i>d</i><sub>k</sub> : "
                     "<i>i·d</i><sub>k</sub>],&nbsp; heads from 1"),
            {QStringLiteral("low-rank"), FactoredView::kId, 1, 0, 0},
            GuideTarget::FusedLayout,
            Text::tr("the fused W^Q, split into heads")};
}

// The reshape every implementation does: all heads in one product, then a view.
GuideStep theReshape()
{
    return {Text::tr("And the reshape that code does?"),
            Text::tr("Code projects all heads at once: Q = XW<sup>Q</sup> is n × d<sub>model</sub>, viewed as "
                     "(n, h, d<sub>k</sub>) and transposed to (h, n, d<sub>k</sub>). Each head gets an "
                     "n × d<sub>k</sub> block: in <b>Matrices</b>, the outlined columns of Q become Q<sub>i</sub> "
                     "beside it. K and V split the same way."),
            Text::tr("(<i>n</i>, <i>d</i><sub>model</sub>) → (<i>n</i>, <i>h</i>, <i>d</i><sub>k</sub>) → "
                     "(<i>h</i>, <i>n</i>, <i>d</i><sub>k</sub>),&nbsp; <i>Q</i><sub>i</sub> = "
                     "<i>XW</i><sub>i</sub><sup>Q</sup>"),
            {QStringLiteral("low-rank"), MatricesView::kId, 1, 2, 2},
            GuideTarget::MatricesCanvas,
            Text::tr("the Matrices tab's figure: Q and Q_i"),
            GuidePart::QueryAndHead};
}

// Heads can learn different jobs; here presets show what such jobs look like.
GuideStep doHeadsSpecialise()
{
    return {Text::tr("Do heads specialise?"),
            Text::tr("Each head has its own W<sub>i</sub><sup>Q</sup>, W<sub>i</sub><sup>K</sup>, so each can "
                     "look for something else: here four presets (same meaning, same position, previous token, "
                     "uniform), set by hand. The next step opens a model whose heads found jobs by learning. In "
                     "Train, Reverse gives several heads one alignment: redundancy."),
            Text::tr("MultiHead(<i>Q</i>, <i>K</i>, <i>V</i>) = Concat(head<sub>1</sub>, …, head<sub>h</sub>)"
                     "<i>W</i><sup>O</sup><br>head<sub>i</sub> = Attention(<i>QW</i><sub>i</sub><sup>Q</sup>, "
                     "<i>KW</i><sub>i</sub><sup>K</sup>, <i>VW</i><sub>i</sub><sup>V</sup>)"),
            {QStringLiteral("translation"), HeadsView::kId, 1, 2, 2},
            GuideTarget::HeadsGrid,
            Text::tr("the grid of heads")};
}

// Learned heads: the demo model (docs/demo-model) on a sentence that repeats, its heads named by
// what they measurably do (Olsson et al. 2022).
GuideStep learnedHeads()
{
    return {Text::tr("Do heads specialise when they learn?"),
            Text::tr("Nobody set this tiny two-layer GPT-2's weights: it learned them on repeating blocks of "
                     "letters. On “a b c … a b c …” the <b>Model</b> tab names heads by what they do: <b>prev</b> "
                     "looks at the token just before, <b>ind</b> (induction) at the token that followed this one "
                     "last time. The number is the head's score."),
            Text::tr("prev = mean<sub><i>t</i></sub> <i>a</i><sub><i>t</i>,<i>t</i>−1</sub>,&nbsp; ind = "
                     "mean<sub><i>t</i></sub> <i>a</i><sub><i>t</i>,<i>s</i>+1</sub> (<i>s</i>: the last earlier "
                     "position of token <i>t</i>)"),
            {QString(), ModelGridView::kId, 0, 0, 0, GuideModel::Demo},
            GuideTarget::ModelGrid,
            Text::tr("the Model tab's grid of heads")};
}

// Whether the answer depends on a head: the strongest induction head switched off (Michel et al.
// 2019), its block of Concat zeroed before W^O.
GuideStep doesTheAnswerDependOnAHead()
{
    return {Text::tr("Does the answer depend on a head?"),
            Text::tr("Switch a head off and run the model again: <b>Predict</b> shows the next-token "
                     "probabilities with every head on beside those with the strongest induction head off. "
                     "Right-click a head in the Model tab to switch off others."),
            Text::tr("MultiHead = Concat(head<sub>1</sub>, …, <b>0</b>, …, head<sub>h</sub>)<i>W</i><sup>O</sup>"),
            {QString(), PredictionView::kId, 0, 0, 0, GuideModel::Demo, GuideHeadsOff::StrongestInduction},
            GuideTarget::Predictions,
            Text::tr("the Predict tab's probabilities")};
}

// What a learned head's weights mean in the vocabulary (Elhage et al. 2021): the induction head's OV
// circuit copies the token it attends to (its eigenvalues' real parts positive), while the
// previous-token head's QK circuit over token identities is flat: it finds its key by position.
GuideStep whatAHeadWrites()
{
    return {Text::tr("What does a head write into the prediction?"),
            Text::tr("Take the direct path from a token's embedding through one head to the readout. The <b>OV</b> "
                     "table lists, for each token the head attends to, the tokens it makes likelier: the induction "
                     "head writes the token it looks at (·c → ·c), so its OV eigenvalues sit on the positive real "
                     "axis. The <b>QK</b> table asks which key tokens a token prefers by identity alone: the "
                     "previous-token head's are nearly flat, because it looks by position."),
            Text::tr("QK: (<i>W<sub>E</sub></i>[<i>a</i>] <i>W<sub>Q</sub><sup>h</sup></i>) · "
                     "(<i>W<sub>E</sub></i>[<i>b</i>] <i>W<sub>K</sub><sup>h</sup></i>) / √<i>d</i><sub>k</sub>,&nbsp; "
                     "OV: <i>W<sub>E</sub></i>[<i>s</i>] <i>W<sub>V</sub><sup>h</sup> W<sub>O</sub><sup>h</sup> "
                     "W<sub>U</sub></i>,&nbsp; copying = Σ Re λ / Σ |λ|"),
            {QString(), CircuitsView::kId, 0, 0, 0, GuideModel::Demo, GuideHeadsOff::None, GuideMeasure::Circuits},
            GuideTarget::CircuitsHead,
            Text::tr("the Circuits tab's page of head 1.1")};
}

// Whether a head matters, measured by activation patching (Meng et al. 2022; Heimersheim & Nanda
// 2024): one component of the clean run put into the corrupted run, and how much of the clean
// answer comes back.
GuideStep whichHeadsCarryTheAnswer()
{
    GuideState state{QString(), PredictionView::kId, 0, 0, 0, GuideModel::Demo, GuideHeadsOff::None,
                     GuideMeasure::Patching};
    state.sentence = QStringLiteral("a b c d e a b c d");
    state.corrupted = QStringLiteral("a b c d f a b c d");
    return {Text::tr("Which heads carry the answer?"),
            Text::tr("After “a b c d e a b c d” the model answers “e”; change the e to f and it answers “f”. "
                     "<b>Patching</b> runs the corrupted prompt with one head's output, or one position of the "
                     "residual stream, taken from the clean run: 1 means the whole clean answer came back. The "
                     "heads grid finds the heads that carry it, the residual grid where it travels."),
            Text::tr("<i>r</i> = (LD(patched) − LD(<i>P</i>′)) / (LD(<i>P</i>) − LD(<i>P</i>′)),&nbsp; LD = "
                     "logit<sub>e</sub> − logit<sub>f</sub>"),
            state,
            GuideTarget::PatchingGrids,
            Text::tr("the Predict tab's Patching page")};
}

// A model trained in this app and kept: a kept result is a document like any other, and its
// heads show what training found (the Train tab compares it with one full W_i per head).
GuideStep aModelTrainedHere()
{
    return {
        Text::tr("And a model you train yourself?"),
        Text::tr(
            "This model was trained in the <b>Train</b> tab on Reverse and kept: a kept result is a "
            "document like any other. Its cross-attention heads learned one alignment: each target "
            "position looks at or beside the source symbol it copies, along the anti-diagonal. Train it with <b>Full "
            "W<sub>i</sub></b> too and the Train tab's verdict says which form learned it first."),
        Text::tr("head<sub>i</sub> = softmax(<i>Q</i><sub>i</sub><i>K</i><sub>i</sub><sup>T</sup> / "
                 "√<i>d</i><sub>k</sub>) <i>V</i><sub>i</sub>,&nbsp; <i>Q</i> from the decoder, <i>K</i>, "
                 "<i>V</i> from the encoder"),
        {QStringLiteral("trained-reverse"), HeadsView::kId, 0, 1, 7},
        GuideTarget::HeadsGrid,
        Text::tr("the trained model's heads")};
}

}  // namespace

const std::vector<GuideStep>& guideSteps()
{
    static const std::vector<GuideStep> steps{queriesKeysValues(),
                                              whatIsV(),
                                              crossAttentionQueries(),
                                              twoThinMatrices(),
                                              whatItSaves(),
                                              oneMatrixManyHeads(),
                                              theReshape(),
                                              doHeadsSpecialise(),
                                              learnedHeads(),
                                              doesTheAnswerDependOnAHead(),
                                              whatAHeadWrites(),
                                              whichHeadsCarryTheAnswer(),
                                              aModelTrainedHere()};
    return steps;
}

}  // namespace qkv::ui
