// The Predict tab's Generate panel on the synthetic GPT-2 (a causal LM of 20 positions) and BERT
// checkpoints: the tokens listed are core's greedy generateTokens on the same prompt, with core's
// probabilities and top 5; the attention grid has one row per token holding the row of the run
// that chose it (the position before the token) in every head, painted into each head's image;
// Stop after the first token leaves one; a new prompt stops and clears, even while the tab is
// hidden; a prompt too long for the model's positions is refused in the panel; a masked LM says
// why it does not generate; Keep as prompt offers the prompt followed by the decoded tokens.

#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/pipeline/generation.hpp"
#include "core/text/token_pieces.hpp"
#include "tests/ui/predict/prediction_test_support.hpp"
#include "ui/background/work_pool.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/predict/generation_attention.hpp"
#include "ui/predict/generation_panel.hpp"
#include "ui/predict/prediction_data.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/render/colormap.hpp"
#include "ui/support/wait_until.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

using testing::openFixtureModel;
using testing::waitUntil;
using testing::wholeModelResult;

constexpr const char* kPrompt = "the cat sat on a mat";

// The tab as ViewTabs holds it: one selection, the shared runs, the view shown.
struct Tab {
    HeadSelection selection;
    WholeModelRuns runs;
    PredictionView view{&selection, &runs};
    GenerationPanel* panel = view.generationPanel();

    Tab() { view.resize(1200, 900); }
    void show(const std::shared_ptr<const Result>& result)
    {
        runs.setResult(result);
        view.setResult(result);
        view.show();
    }
    bool waitForOverview()
    {
        return waitUntil([&] { return view.overview() && !runs.isBusy(); });
    }
    // On the Generate page, generates `tokens` and waits for the end.
    bool generate(int tokens)
    {
        view.pages()->setCurrentWidget(panel);
        QSignalSpy ended(panel, &GenerationPanel::generationEnded);
        panel->tokensBox()->setValue(tokens);
        panel->generateButton()->click();
        return waitUntil([&] { return ended.count() == 1; });
    }
};

std::vector<std::int32_t> promptIds(const PretrainedModel& model, const std::string& prompt)
{
    Expected<ModelSentences> sentences = modelSentences(model, "", prompt);
    EXPECT_TRUE(sentences.ok()) << (sentences ? "" : sentences.error());
    return sentences ? sentences->tokens.ids : std::vector<std::int32_t>();
}

// Core's greedy generation, keeping each step's rows of the position that chose the token:
// rows[t][l] is layer l's h x p block.
struct Reference {
    Generation generation;
    std::vector<std::vector<MatrixF>> rows;
};

Reference referenceGeneration(const PretrainedModel& model, const std::vector<std::int32_t>& prompt, Index tokens)
{
    Reference reference;
    GenerationOptions options;
    options.newTokens = tokens;
    Expected<Generation> generation =
        generateTokens(model, prompt, options, [&](const GeneratedToken& token, const ModelRun& run) {
            const Index query = token.position - 1;
            std::vector<MatrixF> layers;
            for (const auto& layer : run.layers) {
                MatrixF block(static_cast<Index>(layer->attention.heads.size()), query + 1);
                for (Index i = 0; i < block.rows(); ++i)
                    block.row(i) = layer->attention.heads[static_cast<std::size_t>(i)].attention.row(query);
                layers.push_back(block);
            }
            reference.rows.push_back(std::move(layers));
            return true;
        });
    EXPECT_TRUE(generation.ok()) << (generation ? "" : generation.error());
    if (generation) reference.generation = std::move(*generation);
    return reference;
}

// Holds every thread of the work pool until release(), so that a click comes before the work.
struct HeldPool {
    QSemaphore hold, started;
    int threads = workPool()->maxThreadCount();
    HeldPool()
    {
        for (int i = 0; i < threads; ++i)
            workPool()->start([this] {
                started.release();
                hold.acquire();
            });
        EXPECT_TRUE(started.tryAcquire(threads, 60000));
    }
    void release() { hold.release(threads); }
};

TEST(GenerationPanel, ListsCoresGreedyTokensAndTheAttentionOfThePositionThatChoseEach)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kPrompt, 1));
    ASSERT_TRUE(tab.waitForOverview());
    const std::vector<std::int32_t> prompt = promptIds(*model, kPrompt);
    const auto promptLength = static_cast<Index>(prompt.size());
    const Index tokens = 20 - promptLength;  // to the fixture's last position
    ASSERT_GE(tokens, 4);
    QSignalSpy shown(tab.panel, &GenerationPanel::tokenShown);
    ASSERT_TRUE(tab.generate(static_cast<int>(tokens)));
    EXPECT_TRUE(tab.panel->statusLabel()->text().startsWith(QStringLiteral("Generated %1 tokens").arg(tokens)))
        << tab.panel->statusLabel()->text().toStdString();

    const Reference reference = referenceGeneration(*model, prompt, tokens);
    const std::vector<GeneratedToken>& expected = reference.generation.generated;
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(tokens));
    // Tokens appeared as they came: the counts shown grow to N.
    ASSERT_GE(shown.count(), 1);
    for (int i = 1; i < shown.count(); ++i) EXPECT_GT(shown[i][0].toInt(), shown[i - 1][0].toInt());
    EXPECT_EQ(shown.back()[0].toInt(), tokens);

    // The list: core's ids, positions, probabilities and top 5, as the chips name tokens.
    const PredictedTokenNames names(*model);
    QTableWidget* table = tab.panel->table();
    ASSERT_EQ(table->rowCount(), tokens);
    ASSERT_EQ(tab.panel->generated().size(), expected.size());
    for (int t = 0; t < tokens; ++t) {
        const GeneratedToken& token = expected[static_cast<std::size_t>(t)];
        EXPECT_EQ(tab.panel->generated()[static_cast<std::size_t>(t)].id, token.id) << "token " << t;
        EXPECT_EQ(table->item(t, 1)->data(Qt::UserRole).toInt(), token.id) << "token " << t;
        EXPECT_EQ(table->item(t, 0)->text().toLongLong(), promptLength + t);
        EXPECT_EQ(table->item(t, 1)->text(), names.of(token.id));
        EXPECT_EQ(table->item(t, 2)->text(), probabilityText(token.probability));
        ASSERT_EQ(token.top.size(), 5u);
        for (const TokenProbability& top : token.top)
            EXPECT_TRUE(table->item(t, 3)->text().contains(
                QStringLiteral("«%1» %2").arg(names.of(top.id), probabilityText(top.probability))))
                << table->item(t, 3)->text().toStdString();
    }

    // The attention: one row per token, over the tokens so far; row t is the run's row p - 1.
    const GenerationAttention* attention = tab.panel->attention();
    ASSERT_EQ(attention->rowCount(), tokens);
    EXPECT_EQ(attention->keyCount(), promptLength + tokens);
    ASSERT_EQ(attention->layerCount(), model->layerCount());
    ASSERT_EQ(attention->headCount(), 4);
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    for (Index t = 0; t < tokens; ++t) {
        const Index p = promptLength + t;
        for (Index l = 0; l < model->layerCount(); ++l) {
            const MatrixF& rows = reference.rows[static_cast<std::size_t>(t)][static_cast<std::size_t>(l)];
            ASSERT_EQ(rows.rows(), 4);
            ASSERT_EQ(rows.cols(), p);
            for (Index i = 0; i < rows.rows(); ++i) {
                const QImage& image = attention->cellImage({l, i});
                for (Index key = 0; key < p; ++key) {
                    EXPECT_EQ(attention->weight({l, i}, t, key), rows(i, key))
                        << "token " << t << ", head " << l << "." << i;
                    EXPECT_EQ(image.pixel(static_cast<int>(key), static_cast<int>(t)), viridis.rgb(rows(i, key)));
                }
                EXPECT_NEAR(rows.row(i).sum(), 1.0f, 1e-5f);
                // The token itself and later keys: not seen by the position that chose it.
                EXPECT_TRUE(std::isnan(attention->weight({l, i}, t, p)));
                EXPECT_EQ(image.pixel(static_cast<int>(p), static_cast<int>(t)), Colormap::neutralColor().rgb());
            }
        }
    }
    // The tooltip names the head, the token, the position that chose it, the key and its weight.
    const QPointF centre = attention->cellCenter({1, 2}, 0, 1);
    const QString tip = attention->toolTipAt(centre);
    EXPECT_TRUE(tip.contains(QString::fromStdString(modelHeadText(*model, {1, 2})))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("position %1").arg(promptLength - 1))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QString::number(static_cast<double>(reference.rows[0][1](2, 1)), 'f', 6)))
        << tip.toStdString();
    EXPECT_TRUE(tab.panel->keepButton()->isEnabled());
}

TEST(GenerationPanel, StopAfterTheFirstTokenLeavesOne)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kPrompt, 0));
    ASSERT_TRUE(tab.waitForOverview());
    const Index tokens = 20 - static_cast<Index>(promptIds(*model, kPrompt).size());
    QSignalSpy ended(tab.panel, &GenerationPanel::generationEnded);
    HeldPool pool;  // Stop comes before the first token; it ends the generation after that token
    tab.view.pages()->setCurrentWidget(tab.panel);
    tab.panel->tokensBox()->setValue(static_cast<int>(tokens));
    tab.panel->generateButton()->click();
    EXPECT_TRUE(tab.panel->isGenerating());
    EXPECT_EQ(tab.panel->generateButton()->text(), QStringLiteral("Stop"));
    EXPECT_FALSE(tab.panel->keepButton()->isEnabled());
    tab.panel->generateButton()->click();
    EXPECT_FALSE(tab.panel->generateButton()->isEnabled());  // stopping
    pool.release();
    ASSERT_TRUE(waitUntil([&] { return ended.count() == 1; }));
    EXPECT_EQ(tab.panel->table()->rowCount(), 1);
    EXPECT_LT(tab.panel->table()->rowCount(), tokens);
    EXPECT_EQ(tab.panel->attention()->rowCount(), 1);
    EXPECT_TRUE(tab.panel->statusLabel()->text().startsWith(QStringLiteral("Stopped after 1 of %1 tokens").arg(tokens)))
        << tab.panel->statusLabel()->text().toStdString();
    EXPECT_EQ(tab.panel->generateButton()->text(), QStringLiteral("Generate"));
    EXPECT_TRUE(tab.panel->generateButton()->isEnabled());
}

TEST(GenerationPanel, ANewPromptStopsTheGenerationAndClearsItEvenWhileTheTabIsHidden)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kPrompt, 0));
    ASSERT_TRUE(tab.waitForOverview());
    ASSERT_TRUE(tab.generate(3));
    ASSERT_EQ(tab.panel->table()->rowCount(), 3);
    // Shown: the new prompt clears what the old one made.
    tab.show(wholeModelResult(model, "", "a mat", 0));
    EXPECT_EQ(tab.panel->table()->rowCount(), 0);
    EXPECT_EQ(tab.panel->attention()->rowCount(), 0);
    EXPECT_FALSE(tab.panel->keepButton()->isEnabled());

    // Hidden: the document's next prompt reaches the tab at the generation's next token.
    ASSERT_TRUE(tab.waitForOverview());
    {
        HeldPool pool;
        tab.panel->tokensBox()->setValue(10);
        tab.panel->generateButton()->click();
        ASSERT_TRUE(tab.panel->isGenerating());
        tab.view.hide();
        const auto edited = wholeModelResult(model, "", "a mat and a cat", 0);
        tab.runs.setResult(edited);
        tab.view.setResult(edited);
        pool.release();
    }
    ASSERT_TRUE(waitUntil([&] { return !tab.panel->isGenerating(); }));
    workPool()->waitForDone();
    QCoreApplication::processEvents();
    EXPECT_EQ(tab.panel->table()->rowCount(), 0);
    EXPECT_TRUE(tab.panel->generated().empty());
}

TEST(GenerationPanel, APromptPastTheModelsPositionsIsRefusedInThePanel)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kPrompt, 0));
    ASSERT_TRUE(tab.waitForOverview());
    const auto promptLength = static_cast<Index>(promptIds(*model, kPrompt).size());
    ASSERT_TRUE(tab.generate(20));
    const QString status = tab.panel->statusLabel()->text();
    EXPECT_TRUE(status.startsWith("The prompt has")) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("would make %1; this model runs on up to 20").arg(promptLength + 20)))
        << status.toStdString();
    EXPECT_EQ(tab.panel->table()->rowCount(), 0);
    EXPECT_FALSE(tab.panel->keepButton()->isEnabled());
    EXPECT_TRUE(tab.panel->generateButton()->isEnabled());
}

TEST(GenerationPanel, AMaskedLmSaysGenerationDoesNotApply)
{
    const auto model = openFixtureModel("bert");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "d [MASK] super", "", 1));
    ASSERT_TRUE(tab.waitForOverview());
    tab.view.pages()->setCurrentWidget(tab.panel);
    ASSERT_TRUE(tab.panel->isVisibleTo(&tab.view));
    const QString reason = tab.panel->reasonLabel()->text();
    EXPECT_TRUE(tab.panel->reasonLabel()->isVisibleTo(&tab.view));
    EXPECT_TRUE(reason.startsWith("Generation continues a causal language model's prompt")) << reason.toStdString();
    EXPECT_TRUE(reason.contains("BERT model reads the whole sentence at once")) << reason.toStdString();
    EXPECT_EQ(tab.panel->notApplicable(), reason);
    EXPECT_FALSE(tab.panel->generateButton()->isVisibleTo(&tab.view));
    tab.panel->generate();
    EXPECT_FALSE(tab.panel->isGenerating());
}

TEST(GenerationPanel, KeepAsPromptOffersThePromptFollowedByTheDecodedTokens)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kPrompt, 0));
    ASSERT_TRUE(tab.waitForOverview());
    EXPECT_FALSE(tab.panel->keepButton()->isEnabled());
    ASSERT_TRUE(tab.generate(5));
    ASSERT_EQ(tab.panel->generated().size(), 5u);

    const std::vector<std::string> table = tokenPieceTable(*model->tokenizer, model->recipe.vocabularySize);
    std::vector<std::string> pieces;
    for (const GeneratedToken& token : referenceGeneration(*model, promptIds(*model, kPrompt), 5).generation.generated)
        pieces.push_back(table[static_cast<std::size_t>(token.id)]);
    const std::string decoded = model->tokenizer->decodePieces(pieces);
    ASSERT_FALSE(decoded.empty());
    EXPECT_EQ(tab.panel->generatedBytes(), decoded);
    QSignalSpy kept(&tab.view, &PredictionView::keepAsPrompt);
    ASSERT_TRUE(tab.panel->keepButton()->isEnabled());
    tab.panel->keepButton()->click();
    ASSERT_EQ(kept.count(), 1);
    EXPECT_EQ(kept[0][0].toString(), QString::fromStdString(std::string(kPrompt) + decoded));
}

TEST(GenerationPanel, SaysWhenGeneratedBytesAreNotWholeCharacters)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", "the cat sat", 0));
    ASSERT_TRUE(tab.waitForOverview());
    // The fixture's greedy continuation of "the cat sat" has lone bytes: "st", " \xC3", " \xC3".
    ASSERT_TRUE(tab.generate(3));
    ASSERT_EQ(tab.panel->table()->item(1, 1)->text(), QStringLiteral("·<0xC3>"));
    EXPECT_EQ(tab.panel->generatedBytes(), "st \xC3 \xC3");
    EXPECT_FALSE(tab.panel->generatedWholeCharacters());
    EXPECT_TRUE(tab.panel->statusLabel()->text().contains("not whole UTF-8 characters"))
        << tab.panel->statusLabel()->text().toStdString();
    EXPECT_TRUE(tab.panel->promptWithGenerated().contains(QChar::ReplacementCharacter));
    // Whole characters say nothing of it.
    tab.show(wholeModelResult(model, "", kPrompt, 0));
    ASSERT_TRUE(tab.generate(1));
    EXPECT_TRUE(tab.panel->generatedWholeCharacters());
    EXPECT_FALSE(tab.panel->statusLabel()->text().contains("not whole"))
        << tab.panel->statusLabel()->text().toStdString();
}

}  // namespace
}  // namespace qkv::ui
