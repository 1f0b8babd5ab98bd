#pragma once
// The main window: controls on the left, the views on the right, menus and status bar.
// Wiring only; each part lives in its own class (DocumentFiles: the File menu's work;
// Autosave: the last state; ViewOptionsSync: view options between widgets and the session).

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QMenu;
class QSplitter;
class QToolButton;

namespace qkv {
struct Checkpoint;
struct CheckpointLayer;
struct PretrainedModel;
enum class PositionalEncoding;
}  // namespace qkv

namespace qkv::ui {

class Autosave;
class ControlsPanel;
class Document;
class DocumentFiles;
class FocusRing;
class WeightLoads;
class HeadSelection;
class HeadsView;
class HeadWeightsView;
class NoticeBar;
class StaleNotice;
class StatusSummary;
class StepView;
class TrainTab;
class ViewOptionsSync;
class ViewTabs;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Opens on the last session (the autosave under QStandardPaths::AppDataLocation), or on the
    // translation example at the first start (then the status bar says where to begin) or when
    // the autosave is broken (then says so): startupMessage().
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return document_; }
    HeadSelection* selection() const { return selection_; }
    ControlsPanel* controls() const { return controls_; }
    ViewTabs* tabs() const { return tabs_; }
    // The strip above the views while the settings are invalid.
    StaleNotice* staleNotice() const { return staleNotice_; }
    // A message too long for the status bar, whole, above the views.
    NoticeBar* noticeBar() const { return noticeBar_; }
    HeadsView* headsView() const;
    HeadWeightsView* weightsView() const { return weightsView_; }
    TrainTab* trainTab() const { return trainTab_; }
    StepView* stepView() const;
    DocumentFiles* files() const { return files_; }
    WeightLoads* loads() const { return loads_; }
    FocusRing* focusRing() const { return focusRing_; }
    Autosave* autosave() const { return autosave_; }
    // Why the last session was not restored, or empty.
    const QString& startupMessage() const { return startupMessage_; }

    // The File menu, and the action before which figure actions (Export Figure…, Copy Figure,
    // ui/export) insert themselves: `fileMenu()->insertActions(figureActionsAnchor(), ...)`.
    QMenu* fileMenu() const { return fileMenu_; }
    QAction* figureActionsAnchor() const { return figureAnchor_; }

    // Asks for a safetensors file and loads it off the GUI thread; a bad file is reported in a
    // message box and changes nothing. Undoable.
    void loadWeightsInteractively();
    // Loads `path` off the GUI thread, then uses it (or reports the error); for the menu and tests.
    void loadWeights(const QString& path);
    void useGeneratedWeights();

    // File > Open Checkpoint (main_window_loads.cpp): asks for a .safetensors file or a sharded
    // checkpoint's model.safetensors.index.json, reads its headers off the GUI thread, lets the
    // user pick a layer (CheckpointLayerDialog), asks about unsaved work as every open does
    // (DocumentFiles::beginReplacing), then reads that layer's tensors off the GUI thread and opens
    // it as the document (Document::openCheckpointLayer: one undo step, named after the model).
    // Errors go to a message box and change nothing.
    void openCheckpointInteractively();
    // File > Open Model…: a model of the Hugging Face cache or any model folder, then its layer,
    // opened as Open Checkpoint opens one.
    void openModelInteractively();
    void openCheckpoint(const QString& path);
    // File > Examples' trained model (the data folder's demo-model/, docs/demo-model), opened as
    // every example is (the same question first, then a new document in one undo step): its layer
    // with the induction heads, on its README's sentence, in the Model tab. False when the user
    // cancelled or the model cannot be read (said in a message box); else checkpointLayerLoaded
    // follows.
    bool openDemoModel();
    // The document is the demo model's induction layer, as openDemoModel() opens it.
    bool holdsDemoModel() const;
    // The last step alone, for the dialog and tests (no question asked): opens the layer as the
    // document and emits checkpointLayerLoaded. `positions`: the dialog's choice, used where the
    // checkpoint does not fix them.
    void loadCheckpointLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                             std::optional<qkv::PositionalEncoding> positions = std::nullopt);

    // The Model tab's click: loads `layer` of `model`'s checkpoint (reusing the loaded model),
    // then selects `head`; an encoder-decoder's decoder layer gets a notice instead.
    void openModelLayer(const std::shared_ptr<const qkv::PretrainedModel>& model, const qkv::CheckpointLayer& layer,
                        int head);
    void nextHead();
    void previousHead();
    // Ctrl+T: the table of the chart that has the focus (or holds it), else of the current tab's
    // first chart; says in the status bar when the tab has none.
    void showChartAsTable();
    // Help > Keyboard: every shortcut, read from the window's actions (keyboard_shortcuts.hpp).
    void showKeyboardHelp();

    QSize sizeHint() const override;

signals:
    // A weights file finished loading: an empty message on success, else what was wrong.
    void weightsLoaded(const QString& error);
    // A checkpoint's layer finished loading: an empty message on success, else what was wrong.
    void checkpointLayerLoaded(const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createMenus();         // main_window_menus.cpp: Edit, View, (Head, Scenarios), Help
    void createFileMenu();      // file_menu.cpp
    // keyboard_actions.cpp: View > Tabs (Ctrl+Tab, Alt+1…), Show Chart as Table (Ctrl+T), training
    // from anywhere, Help > Keyboard; the focus ring.
    void createKeyboardActions(QMenu* view);
    void addKeyboardHelp(QMenu* help);
    void createHeadMenus();     // head_menus.cpp: Head (presets, switching off) and Scenarios
    void connectLoads();        // main_window_loads.cpp: what the window does with finished loads
    void connectComputeProgress();  // a long layer's progress in the status line, and its Stop
    void connectTokenChips();       // the sentences' chips select queries and keys, and show them
    void showAbout();
    void restoreLastSession();
    void restoreWindowState();
    void saveWindowState() const;
    void updateTitle();
    void showStatus(const QString& message);
    // Also above the views, whole, when `message` does not fit the status bar's line.
    void showWholeIfLong(const QString& message);
    // Clears the status message and notice strip once the document is at another undo step than
    // the one they spoke of.
    void dropMessageOfAnotherStep(int undoIndex);

    Document* document_;
    HeadSelection* selection_;
    ControlsPanel* controls_;
    ViewTabs* tabs_;
    StaleNotice* staleNotice_;
    NoticeBar* noticeBar_;
    HeadWeightsView* weightsView_ = nullptr;
    TrainTab* trainTab_ = nullptr;
    QSplitter* splitter_;
    StatusSummary* status_;
    DocumentFiles* files_;
    WeightLoads* loads_;
    QToolButton* stopLoad_ = nullptr;  // beside the status line while a model is read (connectLoads)
    QToolButton* stopCompute_ = nullptr;  // ... while a long layer computes (connectComputeProgress)
    // The latest load was asked for from a menu: its error goes to a message box.
    bool loadErrorsInBox_ = false;
    Autosave* autosave_;
    ViewOptionsSync* viewSync_;
    FocusRing* focusRing_ = nullptr;
    QObject* helpExtension_ = nullptr;  // the student guide (help_menu_extension.hpp); goes first, while this is a MainWindow
    QMenu* fileMenu_ = nullptr;
    QAction* figureAnchor_ = nullptr;
    QString startupMessage_;
    int messageUndoIndex_ = -1;  // the undo step showStatus's message was shown at, -1: none shown
};

}  // namespace qkv::ui
