// A long session through the real window: thousands of random edits (sentences, mode, d_model,
// h, g, seed, presets, switching heads off, weights cells and blocks, undo, redo, tabs, pin,
// scenarios, examples, save and open) on the offscreen platform. After every edit the window
// must agree with itself: the document holds what the edit set, undo and redo return to the
// config seen at that point of the history, the controls show the config, every view holds
// the latest result and the shown one has drawn it. Memory in use and the window's QObjects
// at the end must stay within 10% of what they were after the first hundred edits. Run in the
// sanitizer build too (scripts/test.sh --sanitize), where any ASan or UBSan report fails it.
//
// Seeded: QKV_MONKEY_SEED=<n> replays a run, QKV_MONKEY_EDITS=<n> lengthens or shortens it,
// QKV_MONKEY_LOG=1 prints every edit as it is made (for a crash, which prints no failure).
//
// Edits go through widgets (set a control's value, click a button or a tab, trigger a menu's
// QAction) as a user makes them; the few that go through the API say so and why.

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QUndoStack>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/weights/head_edits.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/background/work_pool.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/weights_group.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/stale_notice.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/weights/head_weights_view.hpp"

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer allocator's count of live heap bytes (sanitizer/allocator_interface.h, which
// GCC 12 does not install).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace qkv {
// A config in a failure message: as a session file spells it (GoogleTest finds this by ADL).
void PrintTo(const Config& config, std::ostream* out)
{
    Session session;
    session.config = config;
    *out << sessionToJson(session);
    // What the file spells differently or leaves out: g = h as 0, a rank of another preset.
    *out << "keyValueHeadCount " << config.keyValueHeadCount << ", preset ranks";
    for (const HeadPreset& preset : config.presets) *out << " " << preset.rank;
    *out << ", token scale " << std::hexfloat << config.tokenEmbeddingScale << ", rope base " << config.conventions.ropeBase
         << std::defaultfloat;
}
}  // namespace qkv

namespace qkv::ui::testing {
namespace {

// ---- the run's settings ------------------------------------------------------------------------

std::uint64_t environmentNumber(const char* name, std::uint64_t fallback)
{
    const char* text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

constexpr std::uint64_t kDefaultSeed = 20240622;
#if defined(__SANITIZE_ADDRESS__)
// Each edit runs 5-20x slower under the sanitizers (2,000 edits took 12 minutes there): a fifth of
// the edits, still every kind of edit (the loop makes each kind once before the random ones). The
// optimised suite makes all 2,000.
constexpr int kDefaultEdits = 400;
#else
constexpr int kDefaultEdits = 2000;
#endif
constexpr int kBaselineEdit = 100;  // memory is measured after this many edits, then at the end

#if defined(__GLIBC__)
// One malloc arena for the whole process: glibc gives each thread that allocates its own arena
// (up to 8 per core), and how many the pool's threads happened to get and how fragmented they
// are varied resident memory by a few MB between runs of the same seed. Set before the window
// starts any thread.
const bool kOneMallocArena = mallopt(M_ARENA_MAX, 1) == 1;
#endif

// Memory in use, in kB: resident memory after giving freed heap back (glibc keeps freed
// memory in its arenas; trimming makes the number about live memory). Under AddressSanitizer,
// resident memory holds its quarantine of freed blocks (256 MB), the shadow of every page ever
// used and its allocator's per-size free lists, and grew 20% in 2,000 edits with no leak; its
// allocator's count of live heap bytes is the number there.
long memoryInUseKilobytes()
{
#if defined(__SANITIZE_ADDRESS__)
    return static_cast<long>(__sanitizer_get_current_allocated_bytes() / 1024);
#else
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
#endif
}

// ---- the words a monkey types ------------------------------------------------------------------

const char* const kWords[] = {"the",  "cat",   "sat",  "on",    "mat", "le",    "chat", "noir",  "a",
                              "dog",  "ran",   "fast", "it",    "was", "tired", "sur",  "tapis", "The",
                              "bank", "river", "of",   "money", ",",   ".",     "über", "naïve", "42"};
// Typed key by key: QTest types ASCII only.
const char* const kTypedWords[] = {"the", "cat", "sat", "on", "mat", "dog", "ran", "fast", ",", ".", "42", "Bank"};

class MonkeyTest;

// One kind of edit the monkey makes.
struct EditKind {
    const char* name;
    int weight;  // how often, relative to the others
    void (MonkeyTest::*make)();
    bool movesInHistory = false;  // undo or redo: checked against the history, not added to it
};

class MonkeyTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        seed = environmentNumber("QKV_MONKEY_SEED", kDefaultSeed);
        edits = static_cast<int>(environmentNumber("QKV_MONKEY_EDITS", kDefaultEdits));
        logEdits = environmentNumber("QKV_MONKEY_LOG", 0) != 0;
        random.seed(seed);
        log = std::make_shared<PromptLog>();
        log->answer = QMessageBox::Discard;  // unsaved changes are let go when opening
        FilePrompts prompts = recordingPrompts(log);
        prompts.chooseSavePath = [this](const QString&) { return nextSavePath; };
        prompts.chooseOpenPath = [this](const QString&) { return nextOpenPath; };
        window->files()->setPrompts(prompts);
        std::cout << "monkey: seed " << seed << ", " << edits << " edits" << std::endl;
    }

    // ---- random choices ----
    int pick(int count) { return std::uniform_int_distribution<int>(0, count - 1)(random); }
    template <class T, std::size_t N>
    const T& pickFrom(const T (&values)[N])
    {
        return values[pick(static_cast<int>(N))];
    }
    bool chance(int percent) { return pick(100) < percent; }
    QString sentence()
    {
        if (chance(4)) return {};  // an empty sentence: a message at the field, the result stays
        QStringList words;
        for (int i = 0, n = 1 + pick(20); i < n; ++i) words << QString::fromUtf8(pickFrom(kWords));
        return words.join(QLatin1Char(' '));
    }

    // ---- what happened, for a failure message ----
    void did(const std::string& edit)
    {
        recent.push_back("#" + std::to_string(editNumber) + " " + edit);
        if (recent.size() > 8) recent.pop_front();
        if (logEdits) std::cout << recent.back() << std::endl;
    }
    std::string replay() const
    {
        std::ostringstream out;
        out << "seed " << seed << ", edit " << editNumber << " of " << edits << " (replay: QKV_MONKEY_SEED=" << seed
            << " QKV_MONKEY_EDITS=" << editNumber + 1 << "); the last edits:";
        for (const std::string& edit : recent) out << "\n  " << edit;
        return out.str();
    }

    // ---- the window ----
    Document* document() const { return window->document(); }
    const Config& config() const { return document()->config(); }
    QAction* menuAction(const QString& menuTitle, const QString& text) const;
    QMenu* menu(const QString& title) const;
    CompareView* compareView() const;
    qsizetype objectCount() const { return window->findChildren<QObject*>().size(); }
    void clickTab(int index);
    void settleAll();

    // ---- the edits (monkey_test.cpp below) ----
    void typeSentence(SentenceField* field, std::string Config::*text, const char* name);
    void typeSource() { typeSentence(window->controls()->sourceField(), &Config::sourceText, "source"); }
    void typeTarget() { typeSentence(window->controls()->targetField(), &Config::targetText, "target"); }
    void chooseMode();
    void setSize(QSpinBox* box, const char* name, Index Config::*size, int value);
    void setDModel();
    void setDModelTo(int d_model) { setSize(window->controls()->dModelBox(), "d_model", &Config::d_model, d_model); }
    void setHeads();
    void setHeadsTo(int h) { setSize(window->controls()->headsBox(), "h", &Config::headCount, h); }
    void chooseKeyValueHeads();
    void setSeed();
    void toggleBias();
    void nextHead();
    void applyPreset() { applyPreset({}); }
    void applyPreset(const QString& called);  // a random kind when empty
    void removePreset();
    void switchHeadOffOrOn();
    void switchEveryHeadOn();
    void editACell();
    void editABlock();
    void triggerEditMenu(const QString& text);
    void undo() { triggerEditMenu(QStringLiteral("&Undo")); }
    void redo() { triggerEditMenu(QStringLiteral("&Redo")); }
    void goToTab(int index);
    void switchTab() { goToTab(pick(window->tabs()->count())); }
    // The tab right of the current one, as the first edits visit every tab in turn.
    void nextTab() { goToTab((window->tabs()->currentIndex() + 1) % window->tabs()->count()); }
    void pinOrUnpin();
    void saveAs();
    void openSaved();
    void applyScenario();
    void openExample();
    void newDocument();

    static const std::vector<EditKind>& editKinds();
    std::vector<std::function<void()>> firstEdits();

    long memoryAfterNewDocument();

    // ---- the checks after every edit ----
    void checkHistory(bool undoOrRedo);
    void checkControlsShowTheConfig();
    void checkViewsShowTheLatestResult();

    std::uint64_t seed = kDefaultSeed;
    int edits = kDefaultEdits;
    bool logEdits = false;
    int editNumber = 0;
    std::mt19937_64 random;
    std::deque<std::string> recent;
    std::shared_ptr<PromptLog> log;
    QTemporaryDir directory;
    QString nextSavePath, nextOpenPath;
    std::map<QString, Config> saved;          // the sessions saved so far, by path
    std::map<int, Config> configAtUndoIndex;  // the config seen at each point of the history
};

// ---- the window ------------------------------------------------------------------------------------

QMenu* MonkeyTest::menu(const QString& title) const
{
    for (QAction* action : window->menuBar()->actions())
        if (action->menu() && action->text() == title) return action->menu();
    ADD_FAILURE() << "no menu " << title.toStdString();
    return nullptr;
}

// The action of `menuTitle` whose text starts with `text` (the Edit menu's Undo and Redo add the
// command's name); null when there is none.
QAction* MonkeyTest::menuAction(const QString& menuTitle, const QString& text) const
{
    QMenu* m = menu(menuTitle);
    if (!m) return nullptr;
    for (QAction* action : m->actions())
        if (action->text().startsWith(text)) return action;
    return nullptr;
}

CompareView* MonkeyTest::compareView() const
{
    for (ResultView* view : window->tabs()->views())
        if (auto* compare = qobject_cast<CompareView*>(view)) return compare;
    return nullptr;
}

void MonkeyTest::clickTab(int index)
{
    QTabBar* bar = window->tabs()->tabBar();
    const QRect tab = bar->tabRect(index);
    if (tab.isValid() && bar->rect().contains(tab.center()))
        QTest::mouseClick(bar, Qt::LeftButton, {}, tab.center());
    else
        window->tabs()->setCurrentIndex(index);  // scrolled out of the bar: as its scroll buttons would
}

// Until nothing is left to do: the document's computation, every view's background work (and
// the autosave's write) on the pool, and the deliveries they post back, deferred deletes
// included (as an event loop would run them).
void MonkeyTest::settleAll()
{
    for (int round = 0; round < 100; ++round) {
        document()->waitUntilIdle();
        QThreadPool::globalInstance()->waitForDone();
        // The views' work, and the old results they hand to releaseLater, which the memory
        // check must see freed.
        workPool()->waitForDone();
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
        if (!document()->isComputing() && QThreadPool::globalInstance()->activeThreadCount() == 0 &&
            workPool()->activeThreadCount() == 0)
            return;
    }
    ADD_FAILURE() << "the window did not become idle";
}

// ---- the edits: the controls ---------------------------------------------------------------------

void MonkeyTest::typeSentence(SentenceField* field, std::string Config::*text, const char* name)
{
    QPlainTextEdit* editor = field->editor();
    if (chance(30)) {  // a word typed at the end, key by key
        const QString word = QLatin1Char(' ') + QString::fromLatin1(pickFrom(kTypedWords));
        did(std::string("type \"") + word.toStdString() + "\" at the end of the " + name);
        editor->setFocus();
        editor->moveCursor(QTextCursor::End);
        QTest::keyClicks(editor, word);
    } else {  // a sentence pasted over the whole text
        const QString pasted = sentence();
        did(std::string("paste \"") + pasted.toStdString() + "\" as the " + name);
        editor->selectAll();
        editor->insertPlainText(pasted);
    }
    settleAll();
    EXPECT_EQ(config().*text, editor->toPlainText().toStdString()) << "the " << name << " sentence";
}

// A combo box's item chosen as a user picks it; false (said) when the box is disabled.
bool chooseItem(QComboBox* box, int index)
{
    if (!box->isEnabled()) return false;
    box->setCurrentIndex(index);
    return true;
}

void MonkeyTest::chooseMode()
{
    QComboBox* box = window->controls()->modeBox();
    const int index = pick(box->count());
    did("mode " + box->itemText(index).toStdString());
    if (!chooseItem(box, index)) return;
    settleAll();
    EXPECT_EQ(static_cast<int>(config().mode), box->itemData(index).toInt());
}

void MonkeyTest::setDModel()
{
    const int values[] = {0, 8, 12, 16, 24, 32, 48, 64, 96, 128};  // 0 is refused at the field
    setDModelTo(pickFrom(values));
}

// A size typed into its spin box; the config holds it after, valid or not (validation says why
// not at the field).
void MonkeyTest::setSize(QSpinBox* box, const char* name, Index Config::*size, int value)
{
    did(std::string(name) + " " + std::to_string(value));
    box->setValue(value);
    settleAll();
    EXPECT_EQ(config().*size, value) << name;
}

void MonkeyTest::setHeads()
{
    const int values[] = {0, 1, 2, 3, 4, 5, 6, 8, 16};  // 0, and h that do not divide d_model, are refused
    setHeadsTo(pickFrom(values));
}

void MonkeyTest::chooseKeyValueHeads()
{
    QComboBox* box = window->controls()->keyValueHeadsBox();
    const int index = pick(box->count());
    did("g " + box->itemText(index).toStdString());
    if (!chooseItem(box, index)) return;
    settleAll();
    EXPECT_EQ(config().keyValueHeadCount, box->itemData(index).toLongLong());
}

void MonkeyTest::setSeed()
{
    QSpinBox* box = window->controls()->seedBox();
    const int value = pick(1000);
    did("seed " + std::to_string(value));
    if (!box->isEnabled()) return;
    box->setValue(value);
    settleAll();
    EXPECT_EQ(config().seed, static_cast<std::uint64_t>(value));
}

void MonkeyTest::toggleBias()
{
    QCheckBox* box = window->controls()->weights()->biasBox();
    did(box->isChecked() ? "biases off" : "biases on");
    if (!box->isEnabled()) return;
    box->click();
    settleAll();
    EXPECT_EQ(config().withBias, box->isChecked());
}

// ---- the edits: heads ------------------------------------------------------------------------------

void MonkeyTest::nextHead()
{
    did("View > Next Head");
    const int before = window->selection()->head();
    menuAction(QStringLiteral("&View"), QStringLiteral("&Next Head"))->trigger();
    settleAll();
    if (const auto result = document()->result()) {
        EXPECT_EQ(window->selection()->head(), (before + 1) % static_cast<int>(result->attention.headCount()));
    }
}

// The Head menu as it is when shown (it is rebuilt for the selected head then); the action whose
// text starts with `text`, or null.
QAction* headMenuAction(QMenu* headMenu, const QString& text)
{
    emit headMenu->aboutToShow();
    for (QAction* action : headMenu->actions())
        if (action->text().startsWith(text)) return action;
    return nullptr;
}

void MonkeyTest::applyPreset(const QString& called)
{
    QAction* presets = headMenuAction(menu(QStringLiteral("H&ead")), QStringLiteral("&Preset for Head"));
    if (!presets || !presets->menu()) return did("Head > Preset: no head selected");
    const QList<QAction*> kinds = presets->menu()->actions();
    QAction* kind = kinds[pick(static_cast<int>(kinds.size()))];
    if (!called.isEmpty())
        for (QAction* action : kinds)
            if (action->text() == called) kind = action;
    const int head = window->selection()->head();
    did("Head > " + presets->text().toStdString() + " > " + kind->text().toStdString());
    if (!kind->isEnabled()) return;
    kind->trigger();
    settleAll();
    EXPECT_NE(config().presetFor(head), nullptr) << "head " << head + 1;
}

void MonkeyTest::removePreset()
{
    QAction* remove = headMenuAction(menu(QStringLiteral("H&ead")), QStringLiteral("&Remove Preset"));
    if (!remove) return did("Head > Remove Preset: no head selected");
    const int head = window->selection()->head();
    did("Head > " + remove->text().toStdString());
    if (!remove->isEnabled()) return;
    remove->trigger();
    settleAll();
    EXPECT_EQ(config().presetFor(head), nullptr) << "head " << head + 1;
}

void MonkeyTest::switchHeadOffOrOn()
{
    QAction* off = headMenuAction(menu(QStringLiteral("H&ead")), QStringLiteral("Switch &Off Head"));
    if (!off) return did("Head > Switch Off: no head selected");
    const int head = window->selection()->head();
    did(std::string("Head > ") + (off->isChecked() ? "(un)" : "") + off->text().toStdString());
    off->trigger();  // checkable: toggles
    settleAll();
    EXPECT_EQ(config().isAblated(head), off->isChecked()) << "head " << head + 1;
}

void MonkeyTest::switchEveryHeadOn()
{
    QAction* allOn = headMenuAction(menu(QStringLiteral("H&ead")), QStringLiteral("Switch Every Head &On"));
    did("Head > Switch Every Head On");
    if (!allOn || !allOn->isEnabled()) return;
    allOn->trigger();
    settleAll();
    EXPECT_TRUE(config().ablatedHeads.empty());
}

// ---- the edits: the weights editor ---------------------------------------------------------------

// A cell of a block clicked on the Weights tab, a value typed, Set: the entry holds the value.
void MonkeyTest::editACell()
{
    HeadWeightsView* view = window->weightsView();
    clickTab(window->tabs()->indexOf(view));
    settleAll();
    const std::shared_ptr<const HeadWeightsModel> model = view->model();
    if (!model) return did("Weights: a cell, but no model");
    const auto matrix = static_cast<HeadMatrix>(pick(kHeadMatrixCount));
    const Index rows = model->rows(matrix), columns = model->columns(matrix);
    const Index row = pick(static_cast<int>(rows)), column = pick(static_cast<int>(columns));
    const QRectF cells = view->geometry().cells[HeadWeightsModel::index(matrix)];
    const QPointF centre(
        cells.left() + (static_cast<double>(column) + 0.5) * cells.width() / static_cast<double>(columns),
        cells.top() + (static_cast<double>(row) + 0.5) * cells.height() / static_cast<double>(rows));
    const double value = (pick(401) - 200) / 100.0;
    const bool valid = document()->isValid();
    QTest::mouseClick(view->canvas(), Qt::LeftButton, {}, centre.toPoint());
    const HeadWeightsMark hit = view->editedCell();  // a sub-pixel cell may round to its neighbour
    did("Weights: head " + std::to_string(window->selection()->head() + 1) + " block " + std::to_string(hit.matrix) +
        " cell (" + std::to_string(hit.row) + ", " + std::to_string(hit.column) + ") = " + std::to_string(value));
    if (hit.matrix < 0) return;
    view->valueBox()->setValue(value);
    view->setButton()->click();
    settleAll();
    if (!valid) return;  // refused with a notice: the settings are not valid
    const auto result = document()->result();
    ASSERT_TRUE(result);
    const MatrixF block = headBlock(*result->unscaledWeights, result->config.grouping(), window->selection()->head(),
                                    static_cast<HeadMatrix>(hit.matrix));
    EXPECT_EQ(block(hit.row, hit.column), static_cast<float>(view->valueBox()->value()));
}

// One of the editor's block buttons: scale, zero, swap W^Q with W^K, re-randomise, copy onto
// another head.
void MonkeyTest::editABlock()
{
    HeadWeightsView* view = window->weightsView();
    clickTab(window->tabs()->indexOf(view));
    settleAll();
    view->blockBox()->setCurrentIndex(pick(view->blockBox()->count()));
    view->factorBox()->setValue((pick(61) - 30) / 10.0);
    view->seedBox()->setValue(pick(100));
    if (view->copyTargetBox()->count() > 0)
        view->copyTargetBox()->setCurrentIndex(pick(view->copyTargetBox()->count()));
    QPushButton* const buttons[] = {view->scaleButton(), view->zeroButton(), view->swapButton(),
                                    view->rerandomiseButton(), view->copyButton()};
    QPushButton* button = pickFrom(buttons);
    did("Weights: head " + std::to_string(window->selection()->head() + 1) + " " + button->text().toStdString() +
        " (block " + view->blockBox()->currentText().toStdString() + ")");
    if (!button->isEnabled()) return;
    button->click();
    settleAll();
}

// ---- the edits: history, tabs, pin -----------------------------------------------------------------

// Edit > Undo or Edit > Redo (their text adds the command's name), when enabled.
void MonkeyTest::triggerEditMenu(const QString& text)
{
    QAction* action = menuAction(QStringLiteral("&Edit"), text);
    ASSERT_NE(action, nullptr);
    did("Edit > " + action->text().toStdString());
    if (!action->isEnabled()) return;
    action->trigger();
    settleAll();
}

void MonkeyTest::goToTab(int index)
{
    did("tab " + window->tabs()->tabText(index).toStdString());
    clickTab(index);
    settleAll();
    EXPECT_EQ(window->tabs()->currentIndex(), index);
}

void MonkeyTest::pinOrUnpin()
{
    CompareView* compare = compareView();
    ASSERT_NE(compare, nullptr);
    if (compare->pinned() && chance(50)) {
        did("Compare: unpin");
        compare->unpin();  // the API: the Unpin button is not exposed
        settleAll();
        EXPECT_EQ(compare->pinned(), nullptr);
        return;
    }
    did("Compare: pin");
    compare->pinButton()->click();
    settleAll();
    EXPECT_EQ(compare->pinned(), document()->result());
}

// ---- the edits: files ------------------------------------------------------------------------------

void MonkeyTest::saveAs()
{
    nextSavePath = QFileInfo(directory.filePath(QStringLiteral("session-%1.qkv.json").arg(pick(3)))).absoluteFilePath();
    did("File > Save As " + nextSavePath.toStdString());
    const bool valid = document()->isValid();
    menuAction(QStringLiteral("&File"), QStringLiteral("Save &As"))->trigger();
    settleAll();
    if (!valid) {  // refused, saying why: the file could not be opened again
        EXPECT_EQ(log->errors.size(), 1) << "invalid settings were saved";
        log->errors.clear();
        return;
    }
    EXPECT_TRUE(log->errors.isEmpty()) << log->errors.join(QLatin1Char('\n')).toStdString();
    EXPECT_EQ(document()->filePath(), nextSavePath);
    EXPECT_FALSE(document()->isModified());
    saved[nextSavePath] = config();
}

// A config as a session file gives it back. A file writes g, and reads g = h as "g follows h"
// (0): an explicit g that equals h (g = 2 chosen at h = 4, then h = 2) comes back following h.
// Known and left to a decision on the format; every other setting must come back as saved.
Config asReopened(Config config)
{
    if (config.keyValueHeadCount == config.headCount) config.keyValueHeadCount = 0;
    return config;
}

void MonkeyTest::openSaved()
{
    if (saved.empty()) return did("File > Open: nothing saved yet");
    auto file = saved.begin();
    std::advance(file, pick(static_cast<int>(saved.size())));
    nextOpenPath = file->first;
    did("File > Open " + nextOpenPath.toStdString());
    menuAction(QStringLiteral("&File"), QStringLiteral("&Open…"))->trigger();
    settleAll();
    EXPECT_TRUE(log->errors.isEmpty()) << log->errors.join(QLatin1Char('\n')).toStdString();
    EXPECT_EQ(config(), asReopened(file->second));
    EXPECT_EQ(document()->filePath(), nextOpenPath);
    // One undo step back to the document before it; unmodified as opened.
    EXPECT_EQ(document()->undoStack()->undoText(), QStringLiteral("Open %1").arg(QFileInfo(nextOpenPath).fileName()));
    EXPECT_FALSE(document()->isModified());
}

void MonkeyTest::applyScenario()
{
    const QList<QAction*> actions = menu(QStringLiteral("&Scenarios"))->actions();
    const int index = pick(static_cast<int>(actions.size()));
    did("Scenarios > " + actions[index]->text().toStdString());
    actions[index]->trigger();
    settleAll();
    const auto scenario = readExample(examples()[static_cast<std::size_t>(index)]);
    ASSERT_TRUE(scenario);
    EXPECT_EQ(config(), scenario->config);
}

void MonkeyTest::openExample()
{
    QAction* submenu = menuAction(QStringLiteral("&File"), QStringLiteral("&Examples"));
    ASSERT_TRUE(submenu && submenu->menu());
    // The sessions come first in the menu; the demo model after them is a model, not a session.
    const QList<QAction*> actions = submenu->menu()->actions();
    ASSERT_GT(actions.size(), static_cast<qsizetype>(examples().size()));
    const int index = pick(static_cast<int>(examples().size()));
    did("File > Examples > " + actions[index]->text().toStdString());
    actions[index]->trigger();
    settleAll();
    const Example& example = examples()[static_cast<std::size_t>(index)];
    const auto session = readExample(example);
    ASSERT_TRUE(session);
    EXPECT_EQ(config(), session->config);
    EXPECT_EQ(document()->displayName(), example.fileName);
    EXPECT_EQ(document()->undoStack()->undoText(), QStringLiteral("Open Example %1").arg(example.title));
    EXPECT_FALSE(document()->isModified());
}

void MonkeyTest::newDocument()
{
    did("File > New");
    menuAction(QStringLiteral("&File"), QStringLiteral("&New"))->trigger();
    settleAll();
    EXPECT_EQ(document()->undoStack()->count(), 0);
    EXPECT_TRUE(document()->filePath().isEmpty());
}

// ---- the checks after every edit -------------------------------------------------------------------

// Undo and redo come back to the config seen at that point of the history; any other edit
// becomes that point (and drops what was above it, as a new command drops the redo steps).
void MonkeyTest::checkHistory(bool undoOrRedo)
{
    const int index = document()->undoStack()->index();
    if (undoOrRedo) {
        if (const auto seen = configAtUndoIndex.find(index); seen != configAtUndoIndex.end()) {
            EXPECT_EQ(config(), seen->second) << "undo or redo to step " << index << " of the history";
        }
    } else {
        configAtUndoIndex.erase(configAtUndoIndex.upper_bound(index), configAtUndoIndex.end());
    }
    configAtUndoIndex[index] = config();
}

void MonkeyTest::checkControlsShowTheConfig()
{
    const ControlsPanel* c = window->controls();
    EXPECT_EQ(c->sourceField()->text().toStdString(), config().sourceText);
    EXPECT_EQ(c->targetField()->text().toStdString(), config().targetText);
    EXPECT_EQ(c->modeBox()->currentData().toInt(), static_cast<int>(config().mode));
    EXPECT_EQ(c->dModelBox()->value(), config().d_model);
    EXPECT_EQ(c->headsBox()->value(), config().headCount);
    EXPECT_EQ(c->keyValueHeadsBox()->currentData().toLongLong(), config().keyValueHeadCount);
    EXPECT_EQ(static_cast<std::uint64_t>(c->seedBox()->value()), config().seed);
    EXPECT_EQ(c->weights()->biasBox()->isChecked(), config().withBias);
    EXPECT_EQ(window->isWindowModified(), document()->isModified());
}

// Once idle, no view shows a result of earlier settings: every view holds the document's
// result, which is of the current config while it is valid, and the shown view has drawn it.
void MonkeyTest::checkViewsShowTheLatestResult()
{
    const auto result = document()->result();
    if (document()->isValid()) {
        ASSERT_TRUE(result);
        EXPECT_EQ(result->config, config()) << "the result is of earlier settings";
    }
    EXPECT_EQ(window->staleNotice()->isVisibleTo(window.get()), !document()->isValid()) << "the strip above the views";
    for (const ResultView* view : window->tabs()->views())
        EXPECT_EQ(view->result(), result) << view->title().toStdString();
    // The Train tab draws its own runs, not the document's result.
    if (window->tabs()->currentWidget() == static_cast<QWidget*>(window->trainTab())) return;
    const auto* shown = qobject_cast<const ResultView*>(window->tabs()->currentWidget());
    ASSERT_NE(shown, nullptr);
    EXPECT_FALSE(shown->isStale()) << shown->title().toStdString();
    if (!result) return;
    const int heads = static_cast<int>(result->attention.headCount());
    if (shown == window->headsView()) {
        EXPECT_EQ(window->headsView()->heatmapCount(), heads + (window->headsView()->showAverage() ? 1 : 0));
    }
    if (shown == window->weightsView()) {
        const auto model = window->weightsView()->model();
        ASSERT_TRUE(model);
        EXPECT_EQ(model->resultPointer(), result);
        EXPECT_EQ(model->head(), window->selection()->head());
    }
}

// Memory in use with the undo history emptied by File > New. The history keeps a copy of the
// weights for every weights edit (256 kB each at d_model 128) and is as long as the edits since
// the last New or Open: between two readings its length differs by chance, by several MB, which
// would hide a leak or fake one. The two readings compare like with like.
long MonkeyTest::memoryAfterNewDocument()
{
    newDocument();
    checkHistory(false);
    return memoryInUseKilobytes();
}

// The first edits: every tab, then the positional presets at the largest d_model, whose fits
// the document keeps in a bounded cache. The baseline after the first hundred edits then holds
// what first use allocates (views' widgets, charts, glyphs, fitted heads), and growth after it
// is what the session keeps.
std::vector<std::function<void()>> MonkeyTest::firstEdits()
{
    std::vector<std::function<void()>> steps;
    for (int tab = 0; tab < window->tabs()->count(); ++tab) steps.emplace_back([this] { nextTab(); });
    for (const int h : {1, 2, 4}) {
        steps.emplace_back([this] { setDModelTo(128); });
        steps.emplace_back([this, h] { setHeadsTo(h); });
        for (const char* kind : {"Previous token", "Next token", "Same position"})
            steps.emplace_back([this, kind] { applyPreset(QString::fromLatin1(kind)); });
    }
    return steps;
}

// ---- the run -----------------------------------------------------------------------------------

const std::vector<EditKind>& MonkeyTest::editKinds()
{
    static const std::vector<EditKind> kinds = {
        {"source sentence", 8, &MonkeyTest::typeSource},
        {"target sentence", 5, &MonkeyTest::typeTarget},
        {"mode", 5, &MonkeyTest::chooseMode},
        {"d_model", 7, &MonkeyTest::setDModel},
        {"h", 7, &MonkeyTest::setHeads},
        {"g", 5, &MonkeyTest::chooseKeyValueHeads},
        {"seed", 3, &MonkeyTest::setSeed},
        {"biases", 2, &MonkeyTest::toggleBias},
        {"next head", 4, &MonkeyTest::nextHead},
        {"preset", 6, &MonkeyTest::applyPreset},
        {"remove preset", 2, &MonkeyTest::removePreset},
        {"switch a head off or on", 5, &MonkeyTest::switchHeadOffOrOn},
        {"switch every head on", 2, &MonkeyTest::switchEveryHeadOn},
        {"weights cell", 6, &MonkeyTest::editACell},
        {"weights block", 4, &MonkeyTest::editABlock},
        {"undo", 8, &MonkeyTest::undo, true},
        {"redo", 5, &MonkeyTest::redo, true},
        {"tab", 8, &MonkeyTest::switchTab},
        {"pin", 3, &MonkeyTest::pinOrUnpin},
        {"save as", 2, &MonkeyTest::saveAs},
        {"open", 2, &MonkeyTest::openSaved},
        {"scenario", 2, &MonkeyTest::applyScenario},
        {"example", 1, &MonkeyTest::openExample},
        {"new", 1, &MonkeyTest::newDocument},
    };
    return kinds;
}

TEST_F(MonkeyTest, ThousandsOfRandomEditsNeitherCrashNorLeakNorLeaveTheWindowInconsistent)
{
    const std::vector<EditKind>& kinds = editKinds();
    std::vector<int> weights;
    for (const EditKind& kind : kinds) weights.push_back(kind.weight);
    std::discrete_distribution<int> choose(weights.begin(), weights.end());

    const std::vector<std::function<void()>> first = firstEdits();

    settleAll();
    checkHistory(false);
    long baseline = -1;
    qsizetype baselineObjects = 0;
    // The first edits, then each kind once (so a short run, as under the sanitizers, still makes
    // every kind), then kinds at random by their weights.
    const int firstCount = static_cast<int>(first.size()), everyKindCount = static_cast<int>(kinds.size());
    std::vector<int> made(kinds.size(), 0);
    for (editNumber = 0; editNumber < edits; ++editNumber) {
        SCOPED_TRACE("monkey seed " + std::to_string(seed) + ", edit " + std::to_string(editNumber));
        bool movesInHistory = false;
        if (editNumber < firstCount) {
            first[static_cast<std::size_t>(editNumber)]();
        } else {
            const int index = editNumber < firstCount + everyKindCount ? editNumber - firstCount : choose(random);
            const EditKind& kind = kinds[static_cast<std::size_t>(index)];
            (this->*kind.make)();
            movesInHistory = kind.movesInHistory;
            ++made[static_cast<std::size_t>(index)];
        }
        if (!HasFailure()) checkHistory(movesInHistory);
        if (!HasFailure()) checkControlsShowTheConfig();
        if (!HasFailure()) checkViewsShowTheLatestResult();
        if (HasFailure()) FAIL() << replay();
        if (editNumber + 1 == kBaselineEdit) {
            baseline = memoryAfterNewDocument();
            baselineObjects = objectCount();
        }
        if ((editNumber + 1) % 500 == 0)
            std::cout << "monkey: " << editNumber + 1 << " edits, memory in use " << memoryInUseKilobytes() / 1024
                      << " MB, " << objectCount() << " objects in the window, " << document()->undoStack()->count()
                      << " undo steps" << std::endl;
    }
    if (edits >= firstCount + everyKindCount) {
        for (std::size_t i = 0; i < kinds.size(); ++i) EXPECT_GT(made[i], 0) << "never made: " << kinds[i].name;
    }
    if (baseline < 0) return;  // too short a run to measure
    const long end = memoryAfterNewDocument();
    std::cout << "monkey: memory in use after " << kBaselineEdit << " edits " << baseline / 1024 << " MB, after "
              << edits << " " << end / 1024 << " MB" << std::endl;
    EXPECT_LE(end, baseline + baseline / 10) << "memory in use (kB) grew by more than 10%; seed " << seed;
    // A leak of QObjects (widgets, actions, menus made per showing) is found here long before
    // it shows in memory.
    EXPECT_LE(objectCount(), baselineObjects + baselineObjects / 10) << "objects in the window; seed " << seed;
}

}  // namespace
}  // namespace qkv::ui::testing
