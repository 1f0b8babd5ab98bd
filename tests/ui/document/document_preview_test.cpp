// A preview shows other content in every view without being the document: no undo step, not
// modified, not what Save writes; endPreview returns the document; an edit, undo or keep ends it.

#include <QSignalSpy>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "ui/document/document.hpp"

namespace qkv::ui {
namespace {

Config config(std::uint64_t seed, const char* source)
{
    Config c;
    c.sourceText = source;
    c.targetText = "le chat";
    c.mode = AttentionMode::EncoderSelf;
    c.d_model = 32;
    c.headCount = 4;
    c.seed = seed;
    return c;
}

Session sessionOf(const Config& c)
{
    Session s;
    s.config = c;
    return s;
}

class PreviewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        document.reset(config(1, "the cat sat"));
        document.waitUntilIdle();
    }
    Document document;
};

TEST_F(PreviewTest, APreviewIsShownButIsNeitherAnUndoStepNorTheDocument)
{
    QSignalSpy previewing(&document, &Document::previewChanged);
    QSignalSpy changed(&document, &Document::changed);
    document.preview(sessionOf(config(2, "a dog ran")));
    document.waitUntilIdle();
    ASSERT_EQ(previewing.count(), 1);
    EXPECT_TRUE(previewing.first().first().toBool());
    EXPECT_TRUE(document.isPreviewing());
    EXPECT_EQ(document.config().seed, 2u);
    ASSERT_TRUE(document.result());
    EXPECT_EQ(document.result()->config.seed, 2u);  // every view shows it
    EXPECT_EQ(document.documentSession().config.seed, 1u);
    EXPECT_EQ(document.undoStack()->count(), 0);
    EXPECT_FALSE(document.isModified());
    EXPECT_EQ(changed.count(), 0) << "the autosave would write a preview";

    document.preview(sessionOf(config(3, "a dog ran")));  // a newer preview replaces it
    EXPECT_EQ(previewing.count(), 1);
    EXPECT_EQ(document.documentSession().config.seed, 1u);

    document.endPreview();
    document.waitUntilIdle();
    EXPECT_FALSE(document.isPreviewing());
    EXPECT_EQ(previewing.count(), 2);
    EXPECT_EQ(document.config().seed, 1u);
    EXPECT_EQ(document.result()->config.seed, 1u);
}

TEST_F(PreviewTest, KeepIsOneUndoStepBackToTheDocumentBeforeThePreview)
{
    document.preview(sessionOf(config(2, "a dog ran")));
    document.keep(sessionOf(config(2, "a dog ran")), QStringLiteral("Keep Trained Model"));
    EXPECT_FALSE(document.isPreviewing());
    EXPECT_EQ(document.undoStack()->count(), 1);
    EXPECT_EQ(document.undoStack()->undoText(), QStringLiteral("Keep Trained Model"));
    EXPECT_TRUE(document.isModified());
    document.undoStack()->undo();
    EXPECT_EQ(document.config().seed, 1u);
    EXPECT_FALSE(document.isModified());
}

TEST_F(PreviewTest, AnEditOfThePreviewBecomesTheDocumentInOneStep)
{
    document.preview(sessionOf(config(2, "a dog ran")));
    QSignalSpy previewing(&document, &Document::previewChanged);
    Config edited = document.config();
    edited.sourceText = "a dog sat";
    document.edit(edited, QStringLiteral("Source sentence"));
    ASSERT_EQ(previewing.count(), 1);
    EXPECT_FALSE(previewing.first().first().toBool());
    EXPECT_FALSE(document.isPreviewing());
    EXPECT_EQ(document.config().seed, 2u);
    EXPECT_EQ(document.undoStack()->count(), 1);
    document.undoStack()->undo();
    EXPECT_EQ(document.config().seed, 1u);
    EXPECT_EQ(document.config().sourceText, "the cat sat");
}

TEST_F(PreviewTest, UndoDuringAPreviewEndsItWithTheDocumentsHistory)
{
    Config second = document.config();
    second.seed = 5;
    document.edit(second, QStringLiteral("Seed"));
    document.preview(sessionOf(config(2, "a dog ran")));
    document.undoStack()->undo();
    EXPECT_FALSE(document.isPreviewing());
    EXPECT_EQ(document.config().seed, 1u);
}

TEST_F(PreviewTest, ViewOptionsChangedDuringAPreviewAreTheDocumentsToo)
{
    document.preview(sessionOf(config(2, "a dog ran")));
    ViewOptions view = document.viewOptions();
    view.colormap = "magma";
    document.setViewOptions(view);
    EXPECT_EQ(document.documentSession().view.colormap, "magma");
    document.endPreview();
    EXPECT_EQ(document.viewOptions().colormap, "magma");
}

}  // namespace
}  // namespace qkv::ui
