#include "ui/patching/head_maps_dialog.hpp"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/predict/prediction_data.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/render/heatmap_style.hpp"

namespace qkv::ui {
namespace {

// One run's map of `head`: queries down, keys across, both labelled with that run's tokens.
FigureCanvas* mapCanvas(const qkv::ModelRun& run, qkv::ModelHead head, const QStringList& tokens, const QString& title,
                        QWidget* parent)
{
    auto* canvas = new FigureCanvas(QSize(420, 420), parent);
    canvas->setAccessibleName(title);
    const std::vector<qkv::HeadAttention>& heads = run.layer(head.layer).attention.heads;
    const qkv::MatrixF map = static_cast<std::size_t>(head.head) < heads.size()
                                 ? heads[static_cast<std::size_t>(head.head)].attention
                                 : qkv::MatrixF();  // n x n; none when the run kept no maps
    canvas->setPaint([canvas, map, tokens, title](QPainter& painter, const QRectF& rect) {
        HeatmapStyle style;
        style.colormap = ColormapName::Viridis;
        style.rowLabels = tokens;
        style.columnLabels = tokens;
        style.title = title;
        style.rowAxisTitle = QObject::tr("queries");
        style.columnAxisTitle = QObject::tr("keys");
        style.textColor = canvas->palette().color(QPalette::WindowText);
        paintHeatmap(painter, rect.adjusted(4, 4, -4, -4), map, style);
    });
    CellTable table;
    table.caption = [title] { return title; };
    table.rowCount = [map] { return static_cast<int>(map.rows()); };
    table.columnCount = [map] { return static_cast<int>(map.cols()); };
    table.rowHeader = [tokens](int row) { return QObject::tr("query %1").arg(tokens.value(row)); };
    table.columnHeader = [tokens](int column) { return QObject::tr("key %1").arg(tokens.value(column)); };
    table.cellName = [map, tokens](int row, int column) {
        return QObject::tr("query «%1», key «%2»: weight %3")
            .arg(tokens.value(row), tokens.value(column), probabilityText(map(row, column)));
    };
    table.currentCell = [] { return TableCell{0, 0}; };
    canvas->setCellTable(std::move(table));
    canvas->setFocusPolicy(Qt::StrongFocus);
    return canvas;
}

}  // namespace

HeadMapsDialog::HeadMapsDialog(std::shared_ptr<const PatchingPrompts> prompts, qkv::ModelHead head, double recovered,
                               QWidget* parent)
    : QDialog(parent), prompts_(std::move(prompts)), head_(head)
{
    const QString name = headText(*prompts_->model, head_);
    setWindowTitle(tr("Head %1 in both prompts").arg(name));
    setAccessibleName(windowTitle());
    auto* sentence = new QLabel(
        tr("Head %1 carries %2 of the clean answer when its output is patched into the corrupted run. Its attention "
           "in each prompt:")
            .arg(name, QString::number(recovered, 'f', 2)),
        this);
    sentence->setWordWrap(true);
    sentence->setTextFormat(Qt::PlainText);
    clean_ = mapCanvas(*prompts_->cleanWhole, head_, prompts_->cleanTokens,
                       tr("Clean: %1").arg(prompts_->cleanTokens.join(QLatin1Char(' '))), this);
    corrupt_ = mapCanvas(*prompts_->corruptWhole, head_, prompts_->corruptTokens,
                         tr("Corrupted: %1").arg(prompts_->corruptTokens.join(QLatin1Char(' '))), this);
    auto* maps = new QHBoxLayout;
    maps->addWidget(clean_);
    maps->addWidget(corrupt_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->button(QDialogButtonBox::Close)->setAccessibleName(tr("Close"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(sentence);
    layout->addLayout(maps, 1);
    layout->addWidget(buttons);
    resize(900, 520);
}

}  // namespace qkv::ui
