#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QUndoStack>

#include "core/text/tokenizer.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/token_chips.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"

using qkv::ui::testing::WindowTest;

TEST_F(WindowTest, TypingChangesTheLabels)
{
    QPlainTextEdit* editor = window->controls()->sourceField()->editor();
    editor->setFocus();
    editor->moveCursor(QTextCursor::End);
    QTest::keyClicks(editor, " quietly");
    settle();
    const auto figure = window->headsView()->canvas()->figure();
    ASSERT_NE(figure, nullptr);
    EXPECT_EQ(figure->rowLabels().size(), 7);
    EXPECT_EQ(figure->rowLabels().last(), QStringLiteral("quietly"));
    EXPECT_EQ(figure->columnLabels().last(), QStringLiteral("quietly"));
    EXPECT_EQ(window->controls()->sourceField()->chips()->tokens().size(), 7);
}

TEST_F(WindowTest, ChangingHChangesTheNumberOfHeatmaps)
{
    EXPECT_EQ(window->headsView()->heatmapCount(), 4);
    window->controls()->headsBox()->setValue(8);
    settle();
    EXPECT_EQ(window->headsView()->heatmapCount(), 8);
    EXPECT_EQ(window->controls()->headDimBox()->text(), QStringLiteral("auto: 8"));
    window->headsView()->setShowAverage(true);
    EXPECT_EQ(window->headsView()->heatmapCount(), 9);
    window->headsView()->setShowAverage(false);
}

// d_k beside h: a set width makes W^Q d_model x h d_k and frees h from dividing d_model; auto
// goes back to d_model / h. One undo step each.
TEST_F(WindowTest, SettingDkGivesTheHeadsTheirOwnWidth)
{
    QSpinBox* dk = window->controls()->headDimBox();
    EXPECT_EQ(dk->value(), 0);
    dk->setValue(24);
    settle();
    ASSERT_NE(window->document()->result(), nullptr);
    EXPECT_EQ(window->document()->result()->attention.d_k(), 24);
    EXPECT_EQ(window->document()->result()->weights->queryProjection.cols(), 4 * 24);
    EXPECT_EQ(window->headsView()->heatmapCount(), 4);
    window->controls()->headsBox()->setValue(5);  // 5 does not divide d_model = 64: fine with d_k set
    settle();
    EXPECT_FALSE(window->controls()->headsMessage()->isVisible()) << window->controls()->headsMessage()->text().toStdString();
    EXPECT_EQ(window->headsView()->heatmapCount(), 5);
    window->document()->undoStack()->undo();
    window->document()->undoStack()->undo();
    settle();
    EXPECT_EQ(dk->value(), 0);
    EXPECT_EQ(window->document()->result()->attention.d_k(), window->document()->config().d_model / 4);
}

TEST_F(WindowTest, InvalidHShowsTheMessageAndKeepsThePreviousHeatmaps)
{
    const auto before = window->document()->result();
    QSpinBox* heads = window->controls()->headsBox();
    heads->setFocus();
    heads->selectAll();
    QTest::keyClicks(heads, "5");
    settle();
    const qkv::ui::FieldMessage* message = window->controls()->headsMessage();
    EXPECT_TRUE(message->isVisible());
    EXPECT_TRUE(message->text().contains(QStringLiteral("4"))) << message->text().toStdString();
    EXPECT_EQ(window->document()->result(), before);
    EXPECT_EQ(window->headsView()->heatmapCount(), 4);

    // Back to a valid h: the message goes away and the heatmaps follow.
    heads->selectAll();
    QTest::keyClicks(heads, "2");
    settle();
    EXPECT_FALSE(message->isVisible());
    EXPECT_EQ(window->headsView()->heatmapCount(), 2);
}

TEST_F(WindowTest, EditsAreUndoable)
{
    window->controls()->headsBox()->setValue(8);
    settle();
    ASSERT_EQ(window->document()->config().headCount, 8);
    window->document()->undoStack()->undo();
    settle();
    EXPECT_EQ(window->document()->config().headCount, 4);
    EXPECT_EQ(window->controls()->headsBox()->value(), 4);
    EXPECT_EQ(window->headsView()->heatmapCount(), 4);
    window->document()->undoStack()->redo();
    settle();
    EXPECT_EQ(window->headsView()->heatmapCount(), 8);
}

TEST_F(WindowTest, EmptySentenceShowsItsMessageAtTheField)
{
    window->controls()->sourceField()->editor()->setPlainText(QString());
    settle();
    EXPECT_TRUE(window->controls()->sourceField()->message()->isVisible());
    EXPECT_NE(window->document()->result(), nullptr);
    EXPECT_EQ(window->headsView()->heatmapCount(), 4);
}

// Meaning embeddings: the words outside the lexicon are marked on their chips and named once
// under them; with word embeddings nothing is marked.
TEST_F(WindowTest, WordsOutsideTheLexiconAreMarkedAndNamedOnce)
{
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::Cross;
    config.sourceText = "the cat crossed the zorblax";
    config.targetText = "le chat a traversé le zorblax";
    config.embeddings = qkv::EmbeddingKind::Meaning;
    setConfig(config);
    qkv::ui::SentenceField* source = window->controls()->sourceField();
    qkv::ui::SentenceField* target = window->controls()->targetField();
    const QStringList sourceTokens = source->chips()->tokens();
    ASSERT_EQ(sourceTokens.size(), 5);
    EXPECT_FALSE(source->chips()->isMarked(1));  // cat
    EXPECT_TRUE(source->chips()->isMarked(4));   // zorblax
    EXPECT_TRUE(source->lexiconNote().startsWith(QStringLiteral("crossed, zorblax:"))) << source->lexiconNote().toStdString();
    EXPECT_TRUE(source->lexiconNote().contains(QStringLiteral("not in the lexicon, embedded by spelling")));
    EXPECT_EQ(target->lexiconNote().count(QStringLiteral("zorblax")), 1) << target->lexiconNote().toStdString();
    EXPECT_TRUE(target->lexiconNote().contains(QStringLiteral("traversé"))) << target->lexiconNote().toStdString();

    config.embeddings = qkv::EmbeddingKind::Word;
    setConfig(config);
    EXPECT_FALSE(source->chips()->isMarked(4));
    EXPECT_TRUE(source->lexiconNote().isEmpty());
}

// No word-wrapped text of the controls is cut at the smallest window: each label gets its
// height for its width (the scroll area scrolls instead).
TEST_F(WindowTest, EveryWrappedLabelOfTheControlsIsWholeAtTheSmallestWindow)
{
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::Cross;  // the longest explanation
    config.embeddings = qkv::EmbeddingKind::Meaning;
    config.targetText = "le chat a traversé le zorblax";
    for (const QSize size : {QSize(1000, 700), QSize(1400, 900)}) {
        window->resize(size);
        setConfig(config);
        QCoreApplication::processEvents();
        int checked = 0;
        for (const QLabel* label : window->controls()->findChildren<QLabel*>()) {
            if (!label->isVisible() || !label->wordWrap() || label->text().isEmpty()) continue;
            ++checked;
            EXPECT_GE(label->height(), label->heightForWidth(label->width()))
                << "cut at " << size.width() << "x" << size.height() << ": " << label->text().toStdString();
        }
        EXPECT_GT(checked, 2);
    }
}

// The mode's explanation (the answer to "which sentence gives Q") can never be laid out shorter
// than its text at its width: a form row had given it the lines of a wider width, and at
// 1000 x 700 with the training preview it was cut at both ends.
TEST_F(WindowTest, TheModeExplanationAsksForEveryLineItNeeds)
{
    const QString explanation = QString::fromUtf8(qkv::modeExplanation(qkv::AttentionMode::Cross).data());
    for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1000, 700)}) {
        window->resize(size);
        qkv::Config config = smallConfig();
        config.mode = qkv::AttentionMode::Cross;
        setConfig(config);
        for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
        const QLabel* label = nullptr;
        for (const QLabel* candidate : window->controls()->findChildren<QLabel*>())
            if (candidate->text() == explanation) label = candidate;
        ASSERT_NE(label, nullptr);
        EXPECT_GE(label->minimumHeight(), label->heightForWidth(label->width())) << size.width() << "x" << size.height();
        EXPECT_GE(label->height(), label->heightForWidth(label->width())) << size.width() << "x" << size.height();
    }
}

// A shorter explanation at the same width asks for its own lines only: after cross-attention's
// the causal one stood in a band of blank lines as high as the longer text.
TEST_F(WindowTest, TheModeExplanationShrinksWithAShorterText)
{
    window->resize(1400, 900);
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::Cross;
    setConfig(config);
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    config.mode = qkv::AttentionMode::DecoderCausal;
    setConfig(config);
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    const QString explanation = QString::fromUtf8(qkv::modeExplanation(qkv::AttentionMode::DecoderCausal).data());
    const QLabel* label = nullptr;
    for (const QLabel* candidate : window->controls()->findChildren<QLabel*>())
        if (candidate->text() == explanation) label = candidate;
    ASSERT_NE(label, nullptr);
    // The text's own lines at the label's width (heightForWidth never answers below the minimum).
    const int lines = label->fontMetrics()
                          .boundingRect(QRect(0, 0, label->contentsRect().width(), 10000), Qt::TextWordWrap, explanation)
                          .height();
    EXPECT_LE(label->minimumHeight(), lines + 4);
    EXPECT_LE(label->height(), lines + 4);
    EXPECT_GE(label->height(), lines);
}

// Each keystroke cuts the sentence it changed once, for everything that reads it: the field's
// chips, validation, the estimate of the work and the computation (core/pipeline/compute_request.hpp).
TEST_F(WindowTest, AKeystrokeCutsTheSentenceItChangedOnce)
{
    qkv::Config config = window->document()->config();
    config.mode = qkv::AttentionMode::Cross;  // both sentences read
    window->document()->edit(config, QStringLiteral("cross"));
    settle();
    ASSERT_TRUE(window->document()->isValid());

    QPlainTextEdit* editor = window->controls()->sourceField()->editor();
    editor->setFocus();
    editor->moveCursor(QTextCursor::End);
    const std::uint64_t before = qkv::sentenceCutCount();
    QTest::keyClicks(editor, " x");
    settle();
    EXPECT_EQ(qkv::sentenceCutCount() - before, 2u);  // two keystrokes, the source sentence once each
    const QStringList chips = window->controls()->sourceField()->chips()->tokens();
    ASSERT_FALSE(chips.isEmpty());
    EXPECT_EQ(chips.last(), QStringLiteral("x"));
    EXPECT_EQ(window->document()->result()->keyLabels.back(), "x");  // cross: keys from the source
}
