#include "ui/heads/heads_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_figure.hpp"
#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {

const Preference<int> kScoreKind{QStringLiteral("headsView/scoreKind"), 0};
const Preference<bool> kShowAverage{QStringLiteral("headsView/showAverage"), false};
// One colormap for weights (sequential) and one for scores (diverging by default).
const Preference<QString> kWeightsColormap{QStringLiteral("headsView/weightsColormap"), QStringLiteral("viridis")};
const Preference<QString> kScoresColormap{QStringLiteral("headsView/scoresColormap"), QStringLiteral("redblue")};

const Preference<QString>& colormapPreference(ScoreKind kind)
{
    return kind == ScoreKind::Attention ? kWeightsColormap : kScoresColormap;
}

ColormapName storedColormap(ScoreKind kind)
{
    const Preference<QString>& preference = colormapPreference(kind);
    ColormapName name = kind == ScoreKind::Attention ? ColormapName::Viridis : ColormapName::RedBlue;
    colormapFromId(preference.value(), name);
    return name;
}

}  // namespace

HeadsView::HeadsView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, {}, parent), kindBox_(new QComboBox(this)), colormapBox_(new QComboBox(this)),
      averageBox_(new QCheckBox(tr("&Average of heads"), this)), zoomLabel_(new QLabel(this)),
      scroll_(new QScrollArea(this)), canvas_(new HeadsCanvas(this->selection(), scroll_)),
      statistics_(new HeadStatisticsTable(this->selection(), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* bar = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("S&how"), this);
    showLabel->setBuddy(kindBox_);
    for (ScoreKind kind : {ScoreKind::Attention, ScoreKind::RawScores, ScoreKind::MaskedScores})
        kindBox_->addItem(scoreKindName(kind), static_cast<int>(kind));
    kindBox_->setToolTip(tr("Attention weights: softmax of each row (rows sum to 1).\n"
                            "Raw scores: q·k/√d_k before the mask.\n"
                            "Scores after mask: what the softmax sees; masked pairs are −∞ (hatched)."));
    auto* colormapLabel = new QLabel(tr("&Colormap"), this);
    colormapLabel->setBuddy(colormapBox_);
    for (ColormapName name : Colormap::all())
        colormapBox_->addItem(Colormap::get(name).displayName(), static_cast<int>(name));
    averageBox_->setToolTip(tr("Adds a heatmap of the mean over all heads."));
    auto makeButton = [this](const QString& text, const QString& tip) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        return button;
    };
    QToolButton* zoomOut = makeButton(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel)"));
    QToolButton* zoomIn = makeButton(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel)"));
    QToolButton* zoomFit = makeButton(tr("Fit"), tr("Fit all heads in the window"));
    zoomLabel_->setMinimumWidth(zoomLabel_->fontMetrics().horizontalAdvance(QStringLiteral("1600 %")));
    bar->addWidget(showLabel);
    bar->addWidget(kindBox_);
    bar->addSpacing(12);
    bar->addWidget(colormapLabel);
    bar->addWidget(colormapBox_);
    bar->addSpacing(12);
    bar->addWidget(averageBox_);
    bar->addStretch(1);
    bar->addWidget(zoomOut);
    bar->addWidget(zoomLabel_);
    bar->addWidget(zoomIn);
    bar->addWidget(zoomFit);
    layout->addLayout(bar);

    scroll_->setWidget(canvas_);
    scroll_->setWidgetResizable(false);
    scroll_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    scroll_->setFrameShape(QFrame::StyledPanel);
    scroll_->setBackgroundRole(QPalette::Base);
    scroll_->viewport()->installEventFilter(this);
    auto* body = new QSplitter(Qt::Horizontal, this);  // the grid, and the statistics beside it
    body->addWidget(scroll_);
    body->addWidget(statistics_);
    body->setStretchFactor(0, 1);
    body->setCollapsible(0, false);
    layout->addWidget(body, 1);

    auto* hint = new QLabel(tr("Hover a cell for its numbers · hover a query label to follow its row in every head · "
                               "click to select a head and cell · arrows move the cell · [ and ] change head · "
                               "Ctrl+wheel zooms"),
                            this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(hint);

    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        setScoreKind(static_cast<ScoreKind>(kindBox_->itemData(index).toInt()));
    });
    connect(colormapBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        setColormap(static_cast<ColormapName>(colormapBox_->itemData(index).toInt()));
    });
    connect(averageBox_, &QCheckBox::toggled, this, &HeadsView::setShowAverage);
    connect(zoomIn, &QToolButton::clicked, this, [this] { zoomBy(1); });
    connect(zoomOut, &QToolButton::clicked, this, [this] { zoomBy(-1); });
    connect(zoomFit, &QToolButton::clicked, this, &HeadsView::zoomToFit);
    connect(canvas_, &HeadsCanvas::zoomRequested, this, &HeadsView::zoomBy);

    kind_ = static_cast<ScoreKind>(std::clamp(kScoreKind.value(), 0, 2));
    average_ = kShowAverage.value();
    {
        const QSignalBlocker b1(kindBox_), b2(averageBox_);
        kindBox_->setCurrentIndex(kindBox_->findData(static_cast<int>(kind_)));
        averageBox_->setChecked(average_);
    }
    setColormap(storedColormap(kind_));
    updateZoomLabel();
}

QString HeadsView::title() const { return tr("&Heads"); }

QStringList HeadsView::figureNames() const { return {QStringLiteral("heads")}; }

void HeadsView::setScoreKind(ScoreKind kind)
{
    if (kind == kind_) return;
    kind_ = kind;
    kScoreKind.setValue(static_cast<int>(kind));
    {
        const QSignalBlocker blocker(kindBox_);
        kindBox_->setCurrentIndex(kindBox_->findData(static_cast<int>(kind)));
    }
    setColormap(storedColormap(kind));
    invalidate();
    emit scoreKindChanged(kind);
}

ColormapName HeadsView::colormap() const { return canvas_->colormap(); }

void HeadsView::setColormap(ColormapName colormap)
{
    colormapPreference(kind_).setValue(Colormap::get(colormap).id());
    {
        const QSignalBlocker blocker(colormapBox_);
        colormapBox_->setCurrentIndex(colormapBox_->findData(static_cast<int>(colormap)));
    }
    if (canvas_->colormap() == colormap) return;
    canvas_->setColormap(colormap);
    emit colormapChanged(colormap);
}

void HeadsView::setShowAverage(bool show)
{
    if (show == average_) return;
    average_ = show;
    kShowAverage.setValue(show);
    const QSignalBlocker blocker(averageBox_);
    averageBox_->setChecked(show);
    invalidate();
    emit showAverageChanged(show);
}

int HeadsView::heatmapCount() const { return canvas_->panelCount(); }

void HeadsView::zoomBy(int steps) { setZoom(canvas_->zoom() * std::pow(1.25, steps)); }

void HeadsView::zoomToFit() { setZoom(1.0); }

double HeadsView::zoom() const { return canvas_->zoom(); }

void HeadsView::setZoom(double zoom)
{
    const double before = canvas_->zoom();
    canvas_->setZoom(zoom);
    updateZoomLabel();
    if (canvas_->zoom() != before) emit zoomChanged(canvas_->zoom());
}

void HeadsView::setHeadTitles(const QStringList& titles)
{
    if (titles == headTitles_) return;
    headTitles_ = titles;
    invalidate();
}

void HeadsView::updateZoomLabel()
{
    zoomLabel_->setText(QStringLiteral("%1 %").arg(std::lround(canvas_->zoom() * 100)));
    zoomLabel_->setAlignment(Qt::AlignCenter);
}

void HeadsView::refresh(Changes)
{
    statistics_->setResult(result());
    if (!result()) return;
    auto figure = std::make_shared<HeadsFigure>(result(), kind_, average_);
    figure->setHeadTitles(headTitles_);
    canvas_->setFigure(std::move(figure));
}

bool HeadsView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) {
        // Lay out for the space the scroll area has without its scroll bars.
        QSize size = scroll_->maximumViewportSize();
        canvas_->setAvailableSize(size);
        if (canvas_->height() > size.height()) {
            size.rwidth() -= scroll_->verticalScrollBar()->sizeHint().width();
            canvas_->setAvailableSize(size);
        }
    }
    return QWidget::eventFilter(watched, event);
}

QSize HeadsView::sizeHint() const { return {900, 700}; }

}  // namespace qkv::ui
