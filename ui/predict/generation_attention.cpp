#include "ui/predict/generation_attention.hpp"

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/pipeline/pretrained_run.hpp"
#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/colormap.hpp"

namespace qkv::ui {
namespace {

constexpr double kMargin = 6.0;
constexpr double kPad = 4.0;
constexpr double kLegendWidth = 360.0;
constexpr ColormapName kColormap = ColormapName::Viridis;

QString titleText() { return GenerationAttention::tr("Each new token's attention as it appears"); }

QString subtitleText() { return GenerationAttention::tr("row: the position that chose the token"); }

QString legendText()
{
    return GenerationAttention::tr("attention weight, 0 to 1 · plain grey: a key after the position that chose");
}

}  // namespace

// Where everything goes in the widget; the maps are sized for the tokens planned, so rows fill
// them downwards and nothing moves while tokens arrive.
struct GenerationAttention::Layout {
    QRectF title, subtitle, keyAxis, rowAxis, legend;
    QPointF origin;  // the first head's title, top left
    QSizeF map;      // the planned map: (prompt + planned) x planned cells
    double cell = 0, titleHeight = 0, gap = 0;
    bool titled = false;  // room for "1.2" above each map

    QRectF mapRect(qkv::Index layer, qkv::Index head) const
    {
        const double x = origin.x() + static_cast<double>(head) * (map.width() + gap);
        const double y = origin.y() + static_cast<double>(layer) * (titleHeight + map.height() + gap) + titleHeight;
        return {QPointF(x, y), map};
    }
    QRectF titleRect(qkv::Index layer, qkv::Index head) const
    {
        const QRectF m = mapRect(layer, head);
        return {m.left(), m.top() - titleHeight, m.width(), titleHeight};
    }
};

GenerationAttention::GenerationAttention(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Each generated token's attention in every head"));
    // Rich text, so that the tooltip wraps (it holds no data).
    setToolTip(
        tr("<p>Row r of each map: the attention of the position that chose generated token r (the token before "
           "it) over every key so far. Layers down, heads across, each named layer.head as --ablate names "
           "it; grey and crossed: a head switched off. Hover a cell for its weight.</p>"));
    makeAccessibleTable();
}

void GenerationAttention::makeAccessibleTable()
{
    // Layers x heads small maps, each generated tokens x tokens so far: as one table, a row per
    // generated token and a column per head (layer.head), each cell naming the key that head
    // weighed most when choosing the token: the darkest cell of the map's row, what the eye
    // picks out of a small map. The cell's description is that key's tooltip.
    const auto headOf = [this](int column) {
        const qkv::Index heads = std::max<qkv::Index>(heads_, 1);
        return qkv::ModelHead{column / heads, column % heads};
    };
    const auto largestKey = [this](qkv::ModelHead head, qkv::Index row) {
        qkv::Index best = -1;
        for (qkv::Index key = 0; key < keyCount(); ++key) {
            const float w = weight(head, row, key);
            if (!std::isnan(w) && (best < 0 || w > weight(head, row, best))) best = key;
        }
        return best;
    };
    CellTable table;
    table.caption = [this] { return accessibleName(); };
    table.rowCount = [this] { return static_cast<int>(rowCount()); };
    table.columnCount = [this] { return rowCount() > 0 ? static_cast<int>(layerCount() * heads_) : 0; };
    table.rowHeader = [this](int row) { return tokenAt(promptTokens_.size() + row, false); };
    table.columnHeader = [this, headOf](int column) { return tr("Head %1").arg(headTitle(headOf(column))); };
    table.cellName = [this, headOf, largestKey](int row, int column) {
        const qkv::ModelHead head = headOf(column);
        QString name = tr("Head %1, generated token %2").arg(headTitle(head), tokenAt(promptTokens_.size() + row, false));
        if (headsOff_.count(head) > 0) name += tr(", switched off");
        const qkv::Index key = largestKey(head, row);
        if (key < 0) return name;
        return tr("%1: largest weight %2 on key %3")
            .arg(name)
            .arg(static_cast<double>(weight(head, row, key)), 0, 'f', 3)
            .arg(tokenAt(key, false));
    };
    table.cellDescription = [this, headOf, largestKey](int row, int column) {
        const qkv::ModelHead head = headOf(column);
        const qkv::Index key = largestKey(head, row);
        return key < 0 ? QString() : plainTextOfToolTip(cellTip(head, row, key));
    };
    table.currentCell = [] { return TableCell{}; };  // the maps have no keyboard cell
    setAccessibleCellTable(this, std::move(table));
}

void GenerationAttention::begin(const qkv::PretrainedModel& model, QStringList promptTokens, qkv::Index plannedTokens,
                                std::set<qkv::ModelHead> headsOff)
{
    clear();
    promptTokens_ = std::move(promptTokens);
    plannedTokens_ = std::max<qkv::Index>(plannedTokens, 1);
    headsOff_ = std::move(headsOff);
    const int columns = static_cast<int>(promptTokens_.size() + plannedTokens_);
    const int rows = static_cast<int>(plannedTokens_);
    for (qkv::Index l = 0; l < model.layerCount(); ++l) {
        const qkv::CheckpointLayer& layer = model.layersInModelOrder[static_cast<std::size_t>(l)];
        heads_ = std::max(heads_, layer.headCount);
        layerNames_.push_back(QString::fromStdString(layer.name));
        QStringList labels;
        std::vector<QImage> images;
        for (qkv::Index i = 0; i < layer.headCount; ++i) {
            labels << QString::fromStdString(qkv::modelHeadText(model, {l, i}));
            // Left unfilled: a row is written whole when its token arrives, and only written rows are drawn.
            images.emplace_back(columns, rows, QImage::Format_RGB32);
        }
        headLabels_.push_back(std::move(labels));
        images_.push_back(std::move(images));
    }
    update();
}

void GenerationAttention::clear()
{
    headLabels_.clear();
    layerNames_.clear();
    heads_ = 0;
    promptTokens_.clear();
    generatedTokens_.clear();
    plannedTokens_ = 0;
    headsOff_.clear();
    rows_.clear();
    images_.clear();
    update();
    announceTableChanged(this);
}

void GenerationAttention::addToken(const QString& token, std::vector<qkv::MatrixF> rows)
{
    const auto r = static_cast<int>(rowCount());
    if (r >= plannedTokens_ || rows.size() != images_.size()) return;
    const Colormap& colormap = Colormap::get(kColormap);
    const QRgb masked = Colormap::neutralColor().rgb();
    for (std::size_t l = 0; l < images_.size(); ++l) {
        const qkv::MatrixF& layer = rows[l];  // h x p
        for (std::size_t i = 0; i < images_[l].size(); ++i) {
            QImage& image = images_[l][i];
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
            const int seen = i < static_cast<std::size_t>(layer.rows())
                                 ? std::min(static_cast<int>(layer.cols()), image.width())
                                 : 0;
            for (int key = 0; key < seen; ++key) line[key] = colormap.rgb(layer(static_cast<qkv::Index>(i), key));
            std::fill(line + seen, line + image.width(), masked);
        }
    }
    generatedTokens_ << token;
    rows_.push_back(std::move(rows));
    update();
    announceTableChanged(this);
}

float GenerationAttention::weight(qkv::ModelHead head, qkv::Index row, qkv::Index key) const
{
    constexpr float none = std::numeric_limits<float>::quiet_NaN();
    if (row < 0 || row >= rowCount() || head.layer < 0 || head.layer >= layerCount()) return none;
    const qkv::MatrixF& layer = rows_[static_cast<std::size_t>(row)][static_cast<std::size_t>(head.layer)];
    if (head.head < 0 || head.head >= layer.rows() || key < 0 || key >= layer.cols()) return none;
    return layer(head.head, key);
}

const QImage& GenerationAttention::cellImage(qkv::ModelHead head) const
{
    static const QImage none;
    if (head.layer < 0 || head.layer >= layerCount()) return none;
    const std::vector<QImage>& layer = images_[static_cast<std::size_t>(head.layer)];
    return head.head >= 0 && head.head < static_cast<qkv::Index>(layer.size())
               ? layer[static_cast<std::size_t>(head.head)]
               : none;
}

QString GenerationAttention::headTitle(qkv::ModelHead head) const
{
    return headLabels_[static_cast<std::size_t>(head.layer)][static_cast<int>(head.head)];
}

GenerationAttention::Layout GenerationAttention::layout() const
{
    Layout out;
    const QFontMetricsF metrics(font(), this);
    const double line = metrics.lineSpacing();
    const double inner = std::max(1.0, width() - 2 * kMargin);
    out.title = QRectF(kMargin, kMargin, inner, line * 1.2);
    // The subtitle after the title where the line holds both, else on a line of its own.
    QFont bold = font();
    bold.setBold(true);
    const double titleWidth = QFontMetricsF(bold, this).horizontalAdvance(titleText()) + 2 * kPad;
    if (titleWidth + metrics.horizontalAdvance(subtitleText()) <= inner)
        out.subtitle = QRectF(kMargin + titleWidth, out.title.top(), inner - titleWidth, out.title.height());
    else
        out.subtitle = QRectF(kMargin, out.title.bottom(), inner, line);
    const double legendWidth = std::min(kLegendWidth, inner);
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, legendText());
    const double top = out.subtitle.bottom() + kPad;
    // The colour bar only where it leaves the maps most of the height.
    const bool legend = height() - top - legendHeight > 3 * legendHeight;
    const double bottom = height() - kMargin - (legend ? legendHeight + kPad : 0.0);
    out.keyAxis = QRectF(kMargin + line + kPad, top, inner - line - kPad, line);
    const double gridTop = out.keyAxis.bottom() + kPad / 2;
    out.rowAxis = QRectF(kMargin, gridTop, line, std::max(0.0, bottom - gridTop));
    const auto layers = static_cast<double>(layerCount());
    const auto heads = static_cast<double>(heads_);
    if (layers == 0 || heads == 0) return out;
    const double columns = static_cast<double>(promptTokens_.size() + plannedTokens_);
    const auto rows = static_cast<double>(plannedTokens_);
    const double gridLeft = out.keyAxis.left();
    const double gridWidth = inner + kMargin - gridLeft;
    const double gridHeight = bottom - gridTop;
    out.gap = 6.0;
    // Square cells; a title line above each map while the maps are wide enough for one.
    const auto fit = [&](double titleHeight) {
        return std::max(0.0, std::min((gridWidth - (heads - 1) * out.gap) / (heads * columns),
                                      (gridHeight - layers * titleHeight - (layers - 1) * out.gap) / (layers * rows)));
    };
    out.cell = fit(line);
    out.titled = out.cell * columns >= metrics.horizontalAdvance(QStringLiteral("00.00")) + 2;
    out.titleHeight = out.titled ? line : 0.0;
    if (!out.titled) out.cell = fit(0.0);
    out.map = QSizeF(out.cell * columns, out.cell * rows);
    const double usedWidth = heads * out.map.width() + (heads - 1) * out.gap;
    out.origin = QPointF(gridLeft + std::max(0.0, (gridWidth - usedWidth) / 2), gridTop);
    const double usedHeight = layers * (out.titleHeight + out.map.height()) + (layers - 1) * out.gap;
    out.rowAxis.setHeight(usedHeight);  // beside the maps, never over the colour bar under them
    if (legend) out.legend = QRectF(kMargin, gridTop + usedHeight + kPad * 2, legendWidth, legendHeight);
    return out;
}

void GenerationAttention::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QColor text = palette().color(QPalette::WindowText);
    QColor muted = text;
    muted.setAlpha(170);
    const Layout l = layout();
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(text);
    painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(bold, this).elidedText(titleText(), Qt::ElideRight, l.title.width()));
    painter.setFont(font());
    painter.setPen(muted);
    painter.drawText(l.subtitle, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(font(), this).elidedText(subtitleText(), Qt::ElideRight, l.subtitle.width()));
    if (layerCount() == 0) {
        painter.drawText(l.rowAxis.adjusted(0, 0, width() - 2 * kMargin, 0), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Generate: each token's row appears here as it is chosen."));
        return;
    }
    const QFontMetricsF metrics(font(), this);
    painter.setPen(text);
    painter.drawText(l.keyAxis, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(tr("keys: the tokens so far (prompt, then generated) →"), Qt::ElideRight,
                                        l.keyAxis.width()));
    painter.save();
    painter.translate(l.rowAxis.center());
    painter.rotate(-90);
    const QRectF rotated(-l.rowAxis.height() / 2, -l.rowAxis.width() / 2, l.rowAxis.height(), l.rowAxis.width());
    // The longest wording that fits beside short maps, never a cut word.
    QString rowAxis = tr("rows: generated tokens");
    for (const QString& shorter : {tr("generated tokens"), tr("generated")})
        if (metrics.horizontalAdvance(rowAxis) > rotated.width()) rowAxis = shorter;
    painter.drawText(rotated, Qt::AlignCenter, metrics.elidedText(rowAxis, Qt::ElideRight, rotated.width()));
    painter.restore();

    const auto shownRows = static_cast<int>(rowCount());
    const auto shownKeys = static_cast<int>(keyCount());
    QColor frame = text;
    frame.setAlpha(60);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    for (qkv::Index layer = 0; layer < layerCount(); ++layer) {
        for (qkv::Index head = 0; head < static_cast<qkv::Index>(images_[static_cast<std::size_t>(layer)].size());
             ++head) {
            const QRectF map = l.mapRect(layer, head);
            if (l.titled) {
                painter.setPen(text);
                painter.drawText(l.titleRect(layer, head), Qt::AlignCenter, headTitle({layer, head}));
            }
            if (shownRows > 0) {
                const QRectF drawn(map.topLeft(), QSizeF(l.cell * shownKeys, l.cell * shownRows));
                painter.drawImage(drawn, cellImage({layer, head}), QRectF(0, 0, shownKeys, shownRows));
                if (headsOff_.count({layer, head}) > 0) {
                    painter.fillRect(drawn, QColor(128, 128, 128, 170));
                    painter.setPen(QPen(Colormap::neutralColor().darker(160), 1));
                    painter.drawLine(drawn.topLeft(), drawn.bottomRight());
                    painter.drawLine(drawn.topRight(), drawn.bottomLeft());
                }
            }
            // The planned map's outline: where the next rows and keys will go.
            painter.setPen(QPen(frame, 0));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(map);
        }
    }
    if (!l.legend.isEmpty()) {
        painter.setPen(text);
        paintColorLegend(painter, l.legend, kColormap, 0.0, 1.0, legendText());
    }
}

QPointF GenerationAttention::cellCenter(qkv::ModelHead head, qkv::Index row, qkv::Index key) const
{
    if (head.layer < 0 || head.layer >= layerCount()) return {-1, -1};
    const Layout l = layout();
    const QRectF map = l.mapRect(head.layer, head.head);
    return {map.left() + (static_cast<double>(key) + 0.5) * l.cell,
            map.top() + (static_cast<double>(row) + 0.5) * l.cell};
}

QString GenerationAttention::toolTipAt(const QPointF& position) const
{
    if (layerCount() == 0 || rowCount() == 0) return {};
    const Layout l = layout();
    if (l.cell <= 0) return {};
    for (qkv::Index layer = 0; layer < layerCount(); ++layer) {
        for (qkv::Index head = 0; head < static_cast<qkv::Index>(images_[static_cast<std::size_t>(layer)].size());
             ++head) {
            const QRectF map = l.mapRect(layer, head);
            if (!map.contains(position)) continue;
            const auto key = static_cast<qkv::Index>(std::floor((position.x() - map.left()) / l.cell));
            const auto row = static_cast<qkv::Index>(std::floor((position.y() - map.top()) / l.cell));
            return cellTip({layer, head}, row, key);
        }
    }
    return {};
}

QString GenerationAttention::tokenAt(qkv::Index p, bool html) const
{
    const qkv::Index prompt = promptTokens_.size();
    const QString token = p < prompt ? promptTokens_[static_cast<int>(p)] : generatedTokens_[static_cast<int>(p - prompt)];
    return tr("«%1» (position %2)").arg(html ? token.toHtmlEscaped() : token).arg(p);
}

QString GenerationAttention::cellTip(qkv::ModelHead head, qkv::Index row, qkv::Index key) const
{
    QString text = tr("<b>Head %1</b> · %2")
                       .arg(headTitle(head), layerNames_[static_cast<std::size_t>(head.layer)].toHtmlEscaped());
    if (headsOff_.count(head) > 0) text += tr(" · <i>switched off</i>");
    if (row >= rowCount() || key >= keyCount()) return text + tr("<br>Not generated yet.");
    const qkv::Index chosen = promptTokens_.size() + row;
    text += tr("<br>Row %1: generated token %2, chosen by %3").arg(row).arg(tokenAt(chosen), tokenAt(chosen - 1));
    const float w = weight(head, row, key);
    if (std::isnan(w))
        text += tr("<br>Key %1: not seen, it comes after the position that chose").arg(tokenAt(key));
    else
        text += tr("<br>Key %1: weight %2").arg(tokenAt(key)).arg(static_cast<double>(w), 0, 'f', 6);
    return text;
}


bool GenerationAttention::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::showText(help->globalPos(), toolTip(), this);
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

}  // namespace qkv::ui
