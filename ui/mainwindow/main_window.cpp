#include "ui/mainwindow/main_window.hpp"

#include <QCloseEvent>
#include <QMenu>
#include <QScreen>
#include <QShowEvent>
#include <QSplitter>
#include <QStatusBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

#include "core/config/examples.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/controls_scroll_area.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/document/autosave.hpp"
#include "ui/document/compute_runner.hpp"
#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_actions.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/document/off_thread.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/figure_actions.hpp"
#include "ui/mainwindow/help_menu_extension.hpp"
#include "ui/mainwindow/notice_bar.hpp"
#include "ui/mainwindow/stale_notice.hpp"
#include "ui/mainwindow/status_summary.hpp"
#include "ui/mainwindow/view_options_sync.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"
#include "ui/mainwindow/weight_loads.hpp"
#include "ui/patching/patching_pages.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/settings/preference.hpp"
#include "ui/steps/step_view.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/weights/head_weights_view.hpp"

namespace qkv::ui {
namespace {
const Preference<QByteArray> kGeometry{QStringLiteral("mainWindow/geometry"), {}};
const Preference<QByteArray> kWindowState{QStringLiteral("mainWindow/state"), {}};
const Preference<QByteArray> kSplitter{QStringLiteral("mainWindow/splitter"), {}};
constexpr int kStatusMilliseconds = 12000;
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new Document(this)), selection_(new HeadSelection(this)),
      controls_(new ControlsPanel(document_, this)), tabs_(new ViewTabs(selection_, this)),
      staleNotice_(new StaleNotice(this)), noticeBar_(new NoticeBar(this)),
      splitter_(new QSplitter(Qt::Horizontal, this)), status_(new StatusSummary(this)),
      files_(new DocumentFiles(document_, this)), loads_(new WeightLoads(document_, this)),
      autosave_(new Autosave(document_, Autosave::defaultDirectory(), this)),
      viewSync_(new ViewOptionsSync(document_, selection_, tabs_, this))
{
    setObjectName(QStringLiteral("MainWindow"));
    auto* controlsScroll = new ControlsScrollArea(controls_, splitter_);
    controlsScroll->setMinimumWidth(controls_->minimumSizeHint().width() + 20);
    splitter_->addWidget(controlsScroll);
    // The views, under a long message and the strip that says when they are not updated.
    auto* viewsPane = new QWidget(splitter_);
    auto* viewsLayout = new QVBoxLayout(viewsPane);
    viewsLayout->setContentsMargins(0, 0, 0, 0);
    viewsLayout->setSpacing(0);
    viewsLayout->addWidget(noticeBar_);
    viewsLayout->addWidget(staleNotice_);
    viewsLayout->addWidget(tabs_, 1);
    splitter_->addWidget(viewsPane);
    splitter_->setStretchFactor(0, 0);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({340, 1060});
    splitter_->setChildrenCollapsible(false);
    setCentralWidget(splitter_);
    statusBar()->addWidget(status_, 1);

    connect(document_, &Document::resultChanged, this, [this](std::shared_ptr<const qkv::Result> result) {
        if (result) {
            const QStringList titles =
                panelHeadTitles(document_->headTitles(result->config), result->config.ablatedHeads);
            headsView()->setHeadTitles(titles);
            weightsView_->setHeadTitles(titles);
        }
        // Which checkpoint a result without its model came from: the Model and Predict tabs say what it lacks.
        tabs_->wholeModelRuns()->setWeightsFile(document_->weightsSource());
        tabs_->setResult(result);  // also keeps the selection inside the result
        status_->setResult(result);
        staleNotice_->setComputeError(QString());
    });
    connect(document_, &Document::validationChanged, this, [this](const std::vector<qkv::ValidationIssue>& issues) {
        status_->setInvalid(!issues.empty());
        staleNotice_->setIssues(issues, document_->result() != nullptr);
    });
    connect(document_, &Document::busyChanged, status_, &StatusSummary::setBusy);
    connectComputeProgress();
    connectTokenChips();
    connect(document_, &Document::computeFailed, status_, &StatusSummary::setError);
    connect(document_, &Document::computeFailed, staleNotice_, &StaleNotice::setComputeError);
    connect(document_, &Document::notice, this, &MainWindow::showStatus);
    connect(document_->undoStack(), &QUndoStack::indexChanged, this, &MainWindow::dropMessageOfAnotherStep);
    connect(document_, &Document::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document_, &Document::fileChanged, this, &MainWindow::updateTitle);
    connect(files_, &DocumentFiles::statusMessage, this, &MainWindow::showStatus);
    // A session, an example or a new document replaces whatever a load still on its way would set.
    connect(files_, &DocumentFiles::replacingDocument, loads_, &WeightLoads::cancel);
    connect(loads_, &WeightLoads::busyChanged, status_, &StatusSummary::setLoading);
    connectLoads();
    connect(autosave_, &Autosave::written, this, [this](const QString& error) {
        if (!error.isEmpty()) showStatus(tr("Autosave failed: %1").arg(error));
    });
    // One g: the Costs tab's key/value-heads box sets the layer's.
    connect(tabs_->costsView(), &CostsView::keyValueHeadsChosen, this, [this](qkv::Count g) {
        qkv::Config config = document_->config();
        config.keyValueHeadCount = g == config.headCount ? 0 : g;
        document_->edit(config, tr("Key/value heads g = %1").arg(g));
    });
    // The Predict tab's Keep as prompt: the prompt and its generated text become the target sentence.
    if (auto* predict = qobject_cast<PredictionView*>(tabs_->view(PredictionView::kId))) {
        connect(predict, &PredictionView::keepAsPrompt, this, [this](const QString& text) {
            qkv::Config config = document_->config();
            config.targetText = text.toStdString();
            document_->edit(config, tr("Generated tokens kept as the prompt"));
        });
        // Its Patching and Logit lens pages (ui/patching sits above ui/predict).
        addPatchingPages(predict);
    }

    // The weights editor needs the document: its edits are undo steps.
    weightsView_ = new HeadWeightsView(document_, selection_, tabs_);
    tabs_->addView(weightsView_);
    // Training, last: while it runs the other tabs preview its model (Document::preview). A model
    // not kept is asked about before the document is replaced or the window closes.
    trainTab_ = new TrainTab(document_, tabs_);
    tabs_->addTrainTab(trainTab_);
    files_->setUnkeptWork([this] { return trainTab_->hasUnkeptTraining(); });
    connect(files_, &DocumentFiles::replacingDocument, trainTab_, &TrainTab::reset);
    connect(files_, &DocumentFiles::trainingDropped, trainTab_, &TrainTab::reset);
    // Switching a head off from the heads grid.
    connect(headsView()->canvas(), &HeadsCanvas::headContextMenuRequested, this,
            [this](int head, const QPoint& globalPosition) {
                QMenu menu(this);
                addSwitchOffAction(&menu, document_, head);
                QAction* allOn =
                    menu.addAction(tr("Switch Every Head &On"), this, [this] { document_->setAblatedHeads({}); });
                allOn->setEnabled(!document_->config().ablatedHeads.empty());
                menu.addSeparator();
                menu.addAction(tr("Edit Head %1's &Weights").arg(head + 1), this,
                               [this] { tabs_->setCurrentWidget(weightsView_); });
                menu.exec(globalPosition);
            });

    createFileMenu();
    FigureActions::install(this, fileMenu_);  // Export Figure…, Copy Figure, views' context menus
    createMenus();
    restoreWindowState();
    restoreLastSession();
    staleNotice_->setIssues(document_->issues(), document_->result() != nullptr);
    updateTitle();
}

MainWindow::~MainWindow()
{
    // The document's undo stack is deleted with the window's children and says its index changed
    // as it clears: this is no longer a MainWindow to answer it by then.
    disconnect(document_->undoStack(), nullptr, this, nullptr);
    // ~QWidget hides the window once this object is only a QWidget: the guide, which follows the
    // window's hiding, must be gone by then.
    delete helpExtension_;
}

HeadsView* MainWindow::headsView() const { return tabs_->headsView(); }

StepView* MainWindow::stepView() const { return tabs_->stepView(); }

void MainWindow::restoreLastSession()
{
    const Autosave::Restored restored =
        runOffGuiThread([directory = autosave_->directory()] { return Autosave::read(directory); });
    if (restored.session) {
        document_->replace(*restored.session, restored.note.filePath, restored.note.displayName,
                           restored.note.modified);
        autosave_->markCurrent();
        if (!restored.error.isEmpty()) {  // restored, with something to say (the model's own input)
            startupMessage_ = restored.error;
            statusBar()->showMessage(startupMessage_);
            showWholeIfLong(startupMessage_);
        }
        return;
    }
    const Example& first = firstStartExample();
    QStringList problems;
    if (!restored.error.isEmpty()) problems << restored.error;
    if (auto example = readExample(first)) {
        document_->replace(*example, QString(), first.fileName);
        if (!problems.isEmpty()) problems.back() += tr(". Opened the example “%1” instead.").arg(first.title);
    } else {
        // The data files are missing (a partial install): the built-in example's settings (what
        // `qkv-studio export` uses without options), and say why.
        document_->reset(qkv::builtInExample());
        problems << tr("%1 Started on the built-in example's settings instead.")
                        .arg(QString::fromStdString(example.error()));
    }
    if (!problems.isEmpty()) {
        startupMessage_ = problems.join(QStringLiteral(" "));
        statusBar()->showMessage(startupMessage_);  // stays until the next message
        showWholeIfLong(startupMessage_);
    } else if (helpMenuExtension()) {
        // The first start: where to begin (the guide is in the Help menu when the start-up put it there).
        startupMessage_ = tr("New here? Help > Student Guide (F1) shows, step by step, what Q, K and V are and "
                             "what each tab answers.");
        statusBar()->showMessage(startupMessage_);
    }
}

void MainWindow::showStatus(const QString& message)
{
    statusBar()->showMessage(message, kStatusMilliseconds);
    showWholeIfLong(message);
    messageUndoIndex_ = document_->undoStack()->index();
}

void MainWindow::connectComputeProgress()
{
    // A long layer takes seconds: its share done in the status line, and Stop beside it. A stop
    // delivers no result, so every view keeps the one it shows.
    stopCompute_ = new QToolButton(this);
    stopCompute_->setObjectName(QStringLiteral("stopCompute"));
    stopCompute_->setText(tr("Stop"));
    stopCompute_->setToolTip(tr("Stop computing the long layer: the views keep the last result"));
    stopCompute_->hide();
    statusBar()->addPermanentWidget(stopCompute_);
    ComputeRunner* runner = document_->runner();
    connect(runner, &ComputeRunner::progress, this, [this](qkv::Index done, qkv::Index total) {
        status_->setComputeProgress(done, total);
        // The share done on the button too: a status message may cover the summary meanwhile.
        if (total > 0) stopCompute_->setText(tr("Stop (%1%)").arg(std::min<qkv::Index>(100, 100 * done / total)));
        stopCompute_->setVisible(total > 0);
    });
    connect(stopCompute_, &QToolButton::clicked, runner, &ComputeRunner::stop);
    connect(runner, &ComputeRunner::stopped, this, [this] {
        staleNotice_->setStopped(true);
        showStatus(tr("Stopped computing the long layer; the views show the last result."));
    });
    connect(runner, &ComputeRunner::resultReady, staleNotice_, [this] { staleNotice_->setStopped(false); });
}

void MainWindow::dropMessageOfAnotherStep(int undoIndex)
{
    // A message speaks of the step it was shown at ("Undo goes back" after a scenario): once the
    // document is at another step (an edit, Keep, Undo), it would mislead. Undo and Redo show their
    // own message right after.
    if (messageUndoIndex_ < 0 || undoIndex == messageUndoIndex_) return;
    messageUndoIndex_ = -1;
    statusBar()->clearMessage();
    noticeBar_->setMessage(QString());
}

void MainWindow::showWholeIfLong(const QString& message)
{
    // The status bar is one line: what it cannot show whole is shown above the views too.
    // The window's width, not the status bar's, which is not laid out yet during start-up.
    const int room = width() - 4 * statusBar()->fontMetrics().averageCharWidth();
    const bool fits =
        !message.contains(QLatin1Char('\n')) && statusBar()->fontMetrics().horizontalAdvance(message) <= room;
    noticeBar_->setMessage(fits ? QString() : message);
}

void MainWindow::nextHead()
{
    const auto result = document_->result();
    if (!result || result->attention.headCount() == 0) return;
    selection_->setHead((selection_->head() + 1) % static_cast<int>(result->attention.headCount()));
}

void MainWindow::previousHead()
{
    const auto result = document_->result();
    if (!result || result->attention.headCount() == 0) return;
    const int count = static_cast<int>(result->attention.headCount());
    selection_->setHead((selection_->head() + count - 1) % count);
}

void MainWindow::updateTitle()
{
    // "translation.qkv.json* — QKV Studio": Qt puts the * in place of [*] while modified.
    setWindowTitle(tr("%1[*] — QKV Studio").arg(document_->displayName()));
    setWindowModified(document_->isModified());
}

QSize MainWindow::sizeHint() const { return {1400, 900}; }

void MainWindow::restoreWindowState()
{
    if (kGeometry.isSet()) {
        restoreGeometry(kGeometry.value());
    } else if (const QScreen* screen = this->screen()) {
        // First start: Qt would cap the window at 2/3 of the screen, which squeezes the heads.
        const QSize available = screen->availableSize();
        resize(sizeHint().boundedTo(QSize(available.width() * 9 / 10, available.height() * 9 / 10)));
    }
    if (kWindowState.isSet()) restoreState(kWindowState.value());
    if (kSplitter.isSet()) splitter_->restoreState(kSplitter.value());
}

void MainWindow::saveWindowState() const
{
    kGeometry.setValue(saveGeometry());
    kWindowState.setValue(saveState());
    kSplitter.setValue(splitter_->saveState());
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // QStatusBar hides its normal widgets (the summary) for a message only if they are visible
    // then, and the startup message is shown before the window is: shown again now, it is no
    // longer drawn over the summary.
    if (!startupMessage_.isEmpty() && statusBar()->currentMessage() == startupMessage_) {
        statusBar()->clearMessage();
        statusBar()->showMessage(startupMessage_);
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!files_->mayReplace(tr("close QKV Studio"))) {
        event->ignore();
        return;
    }
    trainTab_->reset();  // the training thread stops; the document as it was returns
    if (document_->isModified()) {
        // Discarded: the next start returns to the document as last opened or saved.
        autosave_->writeNow(
            document_->savedSession(),
            {document_->filePath(), document_->filePath().isEmpty() ? document_->displayName() : QString(), false,
             !document_->filePath().isEmpty()});
    } else {
        autosave_->writeNow();
    }
    saveWindowState();
    event->accept();
}

}  // namespace qkv::ui
