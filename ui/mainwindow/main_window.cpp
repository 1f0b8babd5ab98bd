#include "ui/mainwindow/main_window.hpp"

#include <QCloseEvent>
#include <QFileInfo>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>

#include "ui/controls/controls_panel.hpp"
#include "ui/document/config_settings.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/status_summary.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/settings/preference.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui {
namespace {
const Preference<QByteArray> kGeometry{QStringLiteral("mainWindow/geometry"), {}};
const Preference<QByteArray> kWindowState{QStringLiteral("mainWindow/state"), {}};
const Preference<QByteArray> kSplitter{QStringLiteral("mainWindow/splitter"), {}};
const Preference<int> kCurrentTab{QStringLiteral("mainWindow/currentTab"), 0};
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new Document(this)), selection_(new HeadSelection(this)),
      controls_(new ControlsPanel(document_, this)), tabs_(new ViewTabs(selection_, this)),
      splitter_(new QSplitter(Qt::Horizontal, this)), status_(new StatusSummary(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    auto* controlsScroll = new QScrollArea(splitter_);
    controlsScroll->setWidget(controls_);
    controlsScroll->setWidgetResizable(true);
    controlsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    controlsScroll->setFrameShape(QFrame::NoFrame);
    controlsScroll->setMinimumWidth(controls_->minimumSizeHint().width() + 20);
    splitter_->addWidget(controlsScroll);
    splitter_->addWidget(tabs_);
    splitter_->setStretchFactor(0, 0);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({340, 1060});
    splitter_->setChildrenCollapsible(false);
    setCentralWidget(splitter_);
    statusBar()->addWidget(status_, 1);

    connect(document_, &Document::resultChanged, this, [this](std::shared_ptr<const qkv::Result> result) {
        tabs_->setResult(result);  // also keeps the selection inside the result
        status_->setResult(result);
        updateTitle();
    });
    connect(document_, &Document::validationChanged, this,
            [this](const std::vector<qkv::ValidationIssue>& issues) { status_->setInvalid(!issues.empty()); });
    connect(document_, &Document::busyChanged, status_, &StatusSummary::setBusy);
    connect(document_, &Document::weightsSourceChanged, this, &MainWindow::updateTitle);
    connect(document_, &Document::computeFailed, status_, &StatusSummary::setError);

    createMenus();
    restoreWindowState();
    document_->reset(loadLastConfig(defaultConfig()));
}

MainWindow::~MainWindow() = default;

HeadsView* MainWindow::headsView() const { return tabs_->headsView(); }

StepView* MainWindow::stepView() const { return tabs_->stepView(); }

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
    const QString source = document_->weightsSource();
    if (source.isEmpty()) setWindowTitle(tr("QKV Studio"));
    else setWindowTitle(tr("QKV Studio — weights: %1").arg(QFileInfo(source).fileName()));
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
    tabs_->setCurrentIndex(std::clamp(kCurrentTab.value(), 0, tabs_->count() - 1));
}

void MainWindow::saveWindowState() const
{
    kGeometry.setValue(saveGeometry());
    kWindowState.setValue(saveState());
    kSplitter.setValue(splitter_->saveState());
    kCurrentTab.setValue(tabs_->currentIndex());
    saveLastConfig(document_->config());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveWindowState();
    event->accept();
}

}  // namespace qkv::ui
