// The examples and scenarios: each opens, computes, and its heads do the
// jobs their titles say; applying a scenario is one undo step.

#include <QAction>
#include <QStatusBar>
#include <QUndoStack>

#include <cmath>
#include <map>

#include "core/embedding/meaning_embeddings.hpp"
#include "core/factored/factored_matrix.hpp"
#include "core/text/tokenizer.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/notice_bar.hpp"
#include "ui/mainwindow/view_tabs.hpp"

namespace qkv::ui::testing {
namespace {

const Example& exampleCalled(const char* id)
{
    for (const Example& e : examples())
        if (e.id == QLatin1String(id)) return e;
    ADD_FAILURE() << "no example " << id;
    return examples().front();
}

Index argmax(const MatrixF& attention, Index row)
{
    Index column = 0;
    attention.row(row).maxCoeff(&column);
    return column;
}

QString lower(const std::string& text) { return QString::fromStdString(text).toLower(); }

class ScenariosTest : public WindowTest {
protected:
    std::shared_ptr<const Result> open(const char* id)
    {
        window->files()->openExample(exampleCalled(id));
        settle();
        EXPECT_TRUE(window->document()->isValid());
        return window->document()->result();
    }
    QString title(int head) const
    {
        window->headsView()->ensureCurrent();  // its tab may be in the background
        return window->headsView()->canvas()->figure()->panelTitle(head);
    }
};

TEST_F(ScenariosTest, EveryExampleOpensComputesAndTitlesItsHeads)
{
    for (const Example& example : examples()) {
        SCOPED_TRACE(example.id.toStdString());
        auto session = readExample(example);
        ASSERT_TRUE(session) << session.error();
        const auto result = open(example.id.toLatin1().constData());
        ASSERT_TRUE(result);
        EXPECT_EQ(result->config, session->config);
        EXPECT_EQ(window->document()->displayName(), example.fileName);
        EXPECT_FALSE(window->document()->isModified());
        for (Index head = 0; head < result->config.headCount; ++head)
            EXPECT_TRUE(title(static_cast<int>(head))
                            .startsWith(QStringLiteral("Head %1 · %2")
                                            .arg(head + 1)
                                            .arg(QString::fromStdString(headOriginText(*session, head)))))
                << title(static_cast<int>(head)).toStdString();
    }
}

TEST_F(ScenariosTest, TranslationHeadsAlignByPositionByThePreviousTokenAndUniformly)
{
    const auto result = open("translation");
    ASSERT_TRUE(result);
    EXPECT_EQ(title(0), QStringLiteral("Head 1 · same meaning"));
    EXPECT_EQ(title(1), QStringLiteral("Head 2 · same position"));
    EXPECT_EQ(title(2), QStringLiteral("Head 3 · previous token"));
    EXPECT_EQ(title(3), QStringLiteral("Head 4 · uniform"));
    const auto& heads = result->attention.heads;
    const Index n_q = result->attention.queryCount(), n_k = result->attention.keyCount();
    ASSERT_EQ(n_q, 13);  // "Le chat noir s'est assis sur le tapis parce qu'il était fatigué ."
    ASSERT_EQ(n_k, 12);  // "The black cat sat on the mat because it was tired ."
    for (Index q = 0; q < n_q; ++q) {
        EXPECT_EQ(argmax(heads[1].attention, q), std::min(q, n_k - 1)) << "same position, query " << q;
        EXPECT_EQ(argmax(heads[2].attention, q), std::clamp<Index>(q - 1, 0, n_k - 1)) << "previous token, query " << q;
        EXPECT_LT((heads[3].attention.row(q).array() - 1.0f / static_cast<float>(n_k)).abs().maxCoeff(), 1e-6f);
    }

    // Same meaning: a word shared by both sentences ("."), always; each French word's English
    // translation once the lexicon gives translations one vector (meaning embeddings).
    const MatrixF& meaning = heads[0].attention;
    EXPECT_EQ(result->keyLabels[static_cast<std::size_t>(argmax(meaning, n_q - 1))], ".");
    const auto vector = [](const char* word) { return meaningEmbeddings(tokenize(word), 64, 2017); };
    if (vector("chat") == vector("cat")) {
        const std::map<QString, QString> translation{{"le", "the"},        {"chat", "cat"},  {"noir", "black"},
                                                     {"assis", "sat"},     {"sur", "on"},    {"tapis", "mat"},
                                                     {"parce", "because"}, {"était", "was"}, {"fatigué", "tired"}};
        int words = 0, aligned = 0;
        for (Index q = 0; q < n_q; ++q) {
            const auto found = translation.find(lower(result->queryLabels[static_cast<std::size_t>(q)]));
            if (found == translation.end()) continue;
            ++words;
            aligned += lower(result->keyLabels[static_cast<std::size_t>(argmax(meaning, q))]) == found->second;
        }
        EXPECT_GE(aligned * 10, words * 8) << aligned << " of " << words << " French words find their English word";
    }
}

TEST_F(ScenariosTest, DecoderHeadsReadThePreviousTokenTheSameTokenAndEveryTokenSeen)
{
    const auto result = open("decoder");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->config.mode, AttentionMode::DecoderCausal);
    const auto& heads = result->attention.heads;
    const auto& labels = result->queryLabels;
    bool randomIsNotUniform = false;
    for (Index t = 0; t < result->attention.queryCount(); ++t) {
        EXPECT_EQ(argmax(heads[0].attention, t), std::max<Index>(t - 1, 0)) << "previous token, query " << t;
        const Index same = argmax(heads[1].attention, t);
        EXPECT_LE(same, t);
        EXPECT_EQ(lower(labels[static_cast<std::size_t>(same)]), lower(labels[static_cast<std::size_t>(t)]))
            << "same token, query " << t;
        const float seen = 1.0f / static_cast<float>(t + 1);  // keys 0..t
        EXPECT_LT((heads[2].attention.row(t).head(t + 1).array() - seen).abs().maxCoeff(), 1e-6f)
            << "uniform, query " << t;
        randomIsNotUniform |= heads[3].attention.row(t).maxCoeff() > seen + 0.05f;
    }
    EXPECT_TRUE(randomIsNotUniform);
}

TEST_F(ScenariosTest, TheLowRankHeadHasRankTwoAndOpensOnTheFactoredView)
{
    const auto result = open("low-rank");
    ASSERT_TRUE(result);
    EXPECT_EQ(window->tabs()->currentWidget(), window->tabs()->factoredView());
    EXPECT_EQ(title(0), QStringLiteral("Head 1 · low rank, r = 2"));
    const auto spectrum = [&](Index head) {
        return FactoredMatrix::forHead(*result->weights, result->config.headCount, head).singularValues();
    };
    const VectorD lowRank = spectrum(0), random = spectrum(1);
    ASSERT_EQ(lowRank.size(), 16);
    // Built in float: the zero singular values sit at float rounding, far below the two kept.
    EXPECT_GT(lowRank(1), 1e-3 * lowRank(0));
    EXPECT_LT(lowRank(2), 1e-5 * lowRank(0));
    EXPECT_GT(random(15), 1e-3 * random(0));  // a random head has full rank d_k
}

TEST_F(ScenariosTest, ApplyingAScenarioIsOneUndoStep)
{
    const Config before = window->document()->config();
    window->files()->applyScenario(exampleCalled("decoder"));
    settle();
    QUndoStack* undo = window->document()->undoStack();
    EXPECT_EQ(undo->count(), 1);
    EXPECT_EQ(window->document()->config(), readExample(exampleCalled("decoder"))->config);
    EXPECT_TRUE(window->document()->isModified());
    EXPECT_EQ(window->document()->displayName(), QStringLiteral("Untitled"));  // still the same document
    undo->undo();
    settle();
    EXPECT_EQ(window->document()->config(), before);
    EXPECT_EQ(window->document()->result()->config, before);
    EXPECT_FALSE(window->document()->isModified());
    undo->redo();
    settle();
    EXPECT_EQ(window->document()->result()->config.mode, AttentionMode::DecoderCausal);
}

// A scenario says what of the user's it replaced, and after Undo the status line says what was
// undone instead of keeping the scenario's message.
TEST_F(ScenariosTest, AScenarioSaysWhatItReplacedAndUndoSaysItWasUndone)
{
    const Config before = window->document()->config();
    window->files()->applyScenario(exampleCalled("decoder"));
    // Read as it is shown: a status message lasts 12 s, and fitting the scenario's positional
    // heads takes longer than that in the sanitizer build on a busy machine.
    const QString applied = window->statusBar()->currentMessage();
    settle();
    EXPECT_TRUE(applied.contains(QStringLiteral(". It replaced your"))) << applied.toStdString();
    if (readExample(exampleCalled("decoder"))->config.mode != before.mode) {
        EXPECT_TRUE(applied.contains(QStringLiteral("the mode"))) << applied.toStdString();
    }

    QAction* undo = nullptr;
    for (QAction* action : window->findChildren<QAction*>())
        if (action->text().startsWith(QStringLiteral("&Undo"))) undo = action;
    ASSERT_NE(undo, nullptr);
    undo->trigger();
    const QString undone = window->statusBar()->currentMessage();
    settle();
    EXPECT_EQ(window->document()->config(), before);
    EXPECT_TRUE(undone.startsWith(QStringLiteral("Undone: Scenario"))) << undone.toStdString();
    EXPECT_FALSE(undone.contains(QStringLiteral("replaced your")));
}

TEST_F(ScenariosTest, TheScenariosMessageGoesWhenTheDocumentMovesOn)
{
    window->files()->applyScenario(exampleCalled("decoder"));
    ASSERT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("Undo goes back")));
    // Another edit (as Keep on the Train tab is): "Undo goes back" no longer says what Undo does.
    // Made at once, while the scenario still computes: the message must go with the step, not
    // with its 12 s running out.
    Config config = window->document()->config();
    config.seed += 1;
    window->document()->edit(config, QStringLiteral("another seed"));
    EXPECT_TRUE(window->statusBar()->currentMessage().isEmpty()) << window->statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(window->noticeBar()->message().isEmpty()) << window->noticeBar()->message().toStdString();
    settle();
    EXPECT_TRUE(window->statusBar()->currentMessage().isEmpty()) << window->statusBar()->currentMessage().toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
