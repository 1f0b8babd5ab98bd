#pragma once
// The main window: controls on the left, the views on the right, menus and status bar.
// Wiring only; each part lives in its own class.

#include <QMainWindow>

class QSplitter;

namespace qkv::ui {

class ControlsPanel;
class Document;
class HeadSelection;
class HeadsView;
class StatusSummary;
class StepView;
class ViewTabs;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Opens on the last session's configuration, or the built-in example.
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return document_; }
    HeadSelection* selection() const { return selection_; }
    ControlsPanel* controls() const { return controls_; }
    ViewTabs* tabs() const { return tabs_; }
    HeadsView* headsView() const;
    StepView* stepView() const;

    // Asks for a safetensors file and loads it off the GUI thread; a bad file is reported in a
    // message box and changes nothing. Undoable.
    void loadWeightsInteractively();
    // Loads `path` off the GUI thread, then uses it (or reports the error); for the menu and tests.
    void loadWeights(const QString& path);
    void useGeneratedWeights();

    void nextHead();
    void previousHead();

    QSize sizeHint() const override;

signals:
    // A weights file finished loading: an empty message on success, else what was wrong.
    void weightsLoaded(const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();  // main_window_menus.cpp
    void showAbout();
    void restoreWindowState();
    void saveWindowState() const;
    void updateTitle();

    Document* document_;
    HeadSelection* selection_;
    ControlsPanel* controls_;
    ViewTabs* tabs_;
    QSplitter* splitter_;
    StatusSummary* status_;
};

}  // namespace qkv::ui
