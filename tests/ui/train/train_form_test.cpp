// The Train tab's settings: a task fills in its defaults, sizes that do not fit are said under
// their field, a sentence-pairs file is read off the GUI thread and a bad one says why in place.

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "core/training/training_limits.hpp"
#include "tests/ui/train/train_test_support.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/train/learning_rate_box.hpp"
#include "ui/train/train_settings_form.hpp"

namespace qkv::ui::testing {
namespace {

int taskIndex(const TrainSettingsForm& form, const QString& text)
{
    return form.taskBox()->findText(text);
}

void chooseTask(TrainSettingsForm& form, const QString& text)
{
    const int index = taskIndex(form, text);
    ASSERT_GE(index, 0) << text.toStdString();
    form.taskBox()->setCurrentIndex(index);
    emit form.taskBox()->activated(index);  // as a click in the list does
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    return path;
}

TEST(TrainFormTest, TheDefaultsOfEachTaskAreValidAndFilledIn)
{
    TrainSettingsForm form;
    EXPECT_TRUE(form.problem().isEmpty()) << form.problem().toStdString();
    EXPECT_FALSE(form.sizeMessage()->isVisibleTo(&form));
    for (const qkv::TaskKind kind : {qkv::TaskKind::Induction, qkv::TaskKind::Reverse}) {
        chooseTask(form, kind == qkv::TaskKind::Induction ? QStringLiteral("Induction") : QStringLiteral("Reverse"));
        const qkv::TrainingSettings defaults = qkv::TrainingSettings::defaultsFor(kind);
        const TrainingPlan plan = form.plan();
        EXPECT_EQ(plan.settings.task.kind, kind);
        EXPECT_EQ(plan.settings.d_model, defaults.d_model);
        EXPECT_EQ(plan.settings.headCount, defaults.headCount);
        EXPECT_EQ(plan.settings.layers, defaults.layers);
        EXPECT_EQ(plan.settings.steps, defaults.steps);
        EXPECT_EQ(plan.settings.batch, defaults.batch);
        EXPECT_DOUBLE_EQ(plan.settings.optimizer.learningRate, defaults.optimizer.learningRate);
        EXPECT_TRUE(form.problem().isEmpty());
    }
    chooseTask(form, QStringLiteral("Translate EN → DE"));
    EXPECT_EQ(form.plan().settings.task.kind, qkv::TaskKind::Translate);
    EXPECT_EQ(form.plan().settings.task.language, qkv::TargetLanguage::German);
}

TEST(TrainFormTest, HeadsThatDoNotDivideDModelAreFlaggedUnderTheField)
{
    TrainSettingsForm form;
    QSignalSpy changed(&form, &TrainSettingsForm::changed);
    form.dModelBox()->setValue(96);
    form.headsBox()->setValue(5);
    EXPECT_GT(changed.count(), 0);
    EXPECT_TRUE(form.sizeMessage()->isVisibleTo(&form));
    // The training limits' words for the field (core/training/training_limits.hpp), as a sentence.
    EXPECT_EQ(form.sizeMessage()->text(), QStringLiteral("h must divide d_model 96; 5 does not."));
    EXPECT_EQ(form.problem(), form.sizeMessage()->text());
    ASSERT_TRUE(form.plan().fieldProblem().has_value());
    EXPECT_EQ(form.plan().fieldProblem()->field, qkv::TrainingField::Heads);
    form.dModelBox()->setValue(16);
    form.headsBox()->setValue(32);
    EXPECT_EQ(form.sizeMessage()->text(), QStringLiteral("h must be between 1 and d_model 16; 32 is not."));
    form.headsBox()->setValue(8);
    EXPECT_FALSE(form.sizeMessage()->isVisibleTo(&form));
    EXPECT_TRUE(form.problem().isEmpty());
}

TEST(TrainFormTest, TheFieldsRangesAreTheTrainingLimits)
{
    TrainSettingsForm form;
    const std::vector<std::pair<qkv::TrainingField, QSpinBox*>> boxes{{qkv::TrainingField::DModel, form.dModelBox()},
                                                                      {qkv::TrainingField::Heads, form.headsBox()},
                                                                      {qkv::TrainingField::Layers, form.layersBox()},
                                                                      {qkv::TrainingField::Steps, form.stepsBox()},
                                                                      {qkv::TrainingField::Batch, form.batchBox()}};
    for (const auto& [field, box] : boxes) {
        const qkv::TrainingLimit& limit = qkv::trainingLimit(field);
        SCOPED_TRACE(std::string(limit.name));
        EXPECT_EQ(box->minimum(), static_cast<int>(limit.minimum));
        EXPECT_EQ(box->maximum(), static_cast<int>(limit.maximum));
    }
    const qkv::TrainingLimit& rate = qkv::trainingLimit(qkv::TrainingField::LearningRate);
    EXPECT_DOUBLE_EQ(form.learningRateBox()->minimum(), rate.minimum);
    EXPECT_DOUBLE_EQ(form.learningRateBox()->maximum(), rate.maximum);
    EXPECT_EQ(boxes.size() + 1, qkv::kTrainingLimits.size());
}

TEST(TrainFormTest, HMayBeAsLargeAsDModel)
{
    // The command line and TrainingRun take h up to d_model; so does the form.
    TrainSettingsForm form;
    form.dModelBox()->setValue(256);
    form.headsBox()->setValue(256);
    EXPECT_EQ(form.plan().settings.headCount, 256);
    EXPECT_TRUE(form.problem().isEmpty()) << form.problem().toStdString();
    EXPECT_FALSE(form.sizeMessage()->isVisibleTo(&form));
    // Lowering d_model leaves h as it was and says why it no longer fits.
    form.dModelBox()->setValue(128);
    EXPECT_EQ(form.headsBox()->value(), 256);
    EXPECT_EQ(form.problem(), QStringLiteral("h must be between 1 and d_model 128; 256 is not."));
}

TEST(TrainFormTest, VariantsAreFactoredFullOrBoth)
{
    TrainSettingsForm form;
    form.variantBox()->setCurrentIndex(1);
    EXPECT_EQ(form.plan().variants(), std::vector<qkv::ScoreForm>{qkv::ScoreForm::Full});
    form.variantBox()->setCurrentIndex(2);
    EXPECT_EQ(form.plan().variants(), (std::vector<qkv::ScoreForm>{qkv::ScoreForm::Factored, qkv::ScoreForm::Full}));
    form.variantBox()->setCurrentIndex(0);
    EXPECT_EQ(form.plan().variants(), std::vector<qkv::ScoreForm>{qkv::ScoreForm::Factored});
}

TEST(TrainFormTest, TheLearningRateReadsBothSpellingsAndDoublesPerStep)
{
    LearningRateBox box;
    box.setValue(3e-3);
    EXPECT_EQ(box.text(), QStringLiteral("0.003"));
    EXPECT_DOUBLE_EQ(box.valueFromText(QStringLiteral("5e-4")), 5e-4);
    box.stepBy(1);
    EXPECT_DOUBLE_EQ(box.value(), 6e-3);
    QString text = QStringLiteral("1e-");
    int position = 3;
    EXPECT_EQ(box.validate(text, position), QValidator::Intermediate);
    text = QStringLiteral("abc");
    EXPECT_EQ(box.validate(text, position), QValidator::Invalid);
}

TEST(TrainFormTest, ABadPairsFileSaysWhyInPlaceAndAGoodOneIsUsed)
{
    QTemporaryDir dir;
    const QString bad = writeFile(dir, QStringLiteral("bad.tsv"), "the cat\tle chat\nno tab on this line\n");
    const QString good = writeFile(dir, QStringLiteral("good.tsv"), "the cat\tle chat\nthe dog\tle chien\n"
                                                                     "a black cat\tun chat noir\n");
    TrainSettingsForm form;
    form.setChooseFile([bad] { return bad; });
    chooseTask(form, QStringLiteral("Sentence pairs (TSV)…"));
    EXPECT_FALSE(form.problem().isEmpty());  // reading, or its error
    ASSERT_TRUE(waitFor(&form, &TrainSettingsForm::changed, [&] { return !form.isCheckingFile(); }));
    EXPECT_TRUE(form.fileMessage()->isVisibleTo(&form));
    EXPECT_TRUE(form.fileMessage()->text().contains(QStringLiteral("bad.tsv"))) << form.fileMessage()->text().toStdString();
    EXPECT_EQ(form.problem(), form.fileMessage()->text());

    form.usePairsFile(good);
    ASSERT_TRUE(waitFor(&form, &TrainSettingsForm::changed, [&] { return !form.isCheckingFile(); }));
    EXPECT_FALSE(form.fileMessage()->isVisibleTo(&form));
    EXPECT_TRUE(form.problem().isEmpty()) << form.problem().toStdString();
    EXPECT_EQ(QString::fromStdString(form.plan().settings.task.pairsFile.string()), good);
    EXPECT_TRUE(form.fileNote()->text().contains(QStringLiteral("good.tsv")));
}

TEST(TrainFormTest, ACancelledFileDialogKeepsTheTaskBefore)
{
    TrainSettingsForm form;
    chooseTask(form, QStringLiteral("Sort"));
    form.setChooseFile([] { return QString(); });
    chooseTask(form, QStringLiteral("Sentence pairs (TSV)…"));
    EXPECT_EQ(form.taskBox()->currentText(), QStringLiteral("Sort"));
    EXPECT_EQ(form.plan().settings.task.kind, qkv::TaskKind::Sort);
    EXPECT_TRUE(form.problem().isEmpty());
}

}  // namespace
}  // namespace qkv::ui::testing
