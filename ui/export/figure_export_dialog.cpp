#include "ui/export/figure_export_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <cmath>

#include "core/common/limits.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/settings/folders.hpp"
#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {

// The folder last exported to; empty until the first export.
const Preference<QString> kDirectory{QStringLiteral("figures/directory"), QString()};
const Preference<QString> kFormat{QStringLiteral("figures/format"), QStringLiteral("png")};
const Preference<int> kDpi{QStringLiteral("figures/dpi"), 192};

// The figure last exported from a tab, by the tab's first figure (each tab offers its own list,
// and the same name is never offered by two): "figures/chosen/factored" = "spectrum".
Preference<QString> chosenFigure(const std::vector<const Figure*>& figures)
{
    return {QStringLiteral("figures/chosen/") + (figures.empty() ? QString() : figures.front()->name), QString()};
}

// Where a first figure goes: the folder last exported to, else Pictures, else home.
QString startFolder()
{
    return firstExistingFolder(
        {kDirectory.value(), QStandardPaths::writableLocation(QStandardPaths::PicturesLocation)});
}

}  // namespace

FigureExportDialog::FigureExportDialog(std::vector<const Figure*> figures, QWidget* parent, DefaultSize sizeOf)
    : QDialog(parent), figures_(std::move(figures)), sizeOf_(std::move(sizeOf)), figureBox_(new QComboBox(this)), formatBox_(new QComboBox(this)),
      widthBox_(new QSpinBox(this)), heightBox_(new QSpinBox(this)), dpiBox_(new QSpinBox(this)),
      pixels_(new QLabel(this)), pathEdit_(new QLineEdit(this))
{
    setWindowTitle(tr("Export Figure"));
    for (const Figure* f : figures_) figureBox_->addItem(f->title, f->name);
    formatBox_->addItem(tr("PNG image"), QStringLiteral("png"));
    formatBox_->addItem(tr("SVG drawing (text stays text)"), QStringLiteral("svg"));
    formatBox_->addItem(tr("PDF document (one page)"), QStringLiteral("pdf"));
    for (QSpinBox* box : {widthBox_, heightBox_}) {
        box->setRange(limits::minFigureSide, limits::maxFigureSide);
        box->setSuffix(tr(" px"));
        box->setToolTip(tr("Logical pixels, 96 per inch: the figure is laid out for this size"));
    }
    dpiBox_->setRange(limits::minFigureDpi, limits::maxFigureDpi);
    dpiBox_->setSingleStep(48);
    dpiBox_->setSuffix(tr(" dpi"));
    dpiBox_->setToolTip(tr("PNG only: more pixels for the same physical size (96 dpi is one pixel per logical pixel)"));
    dpiBox_->setValue(kDpi.value());
    auto* size = new QHBoxLayout;
    size->addWidget(widthBox_);
    size->addWidget(new QLabel(QStringLiteral("×"), this));
    size->addWidget(heightBox_);
    auto* reset = new QPushButton(tr("Default"), this);
    reset->setToolTip(tr("The figure's default size"));
    size->addWidget(reset);
    size->addStretch(1);
    auto* file = new QHBoxLayout;
    file->addWidget(pathEdit_, 1);
    auto* browse = new QPushButton(tr("&Browse…"), this);
    file->addWidget(browse);

    auto* form = new QFormLayout;
    form->addRow(tr("&Figure:"), figureBox_);
    form->addRow(tr("F&ormat:"), formatBox_);
    // A row whose field is a layout gets no buddy from QFormLayout, and its label would show the
    // "&": give each such label the field its mnemonic goes to.
    const auto labelFor = [this](const QString& text, QWidget* buddy) {
        auto* label = new QLabel(text, this);
        label->setBuddy(buddy);
        return label;
    };
    form->addRow(labelFor(tr("&Size:"), widthBox_), size);
    form->addRow(tr("&Resolution:"), dpiBox_);
    form->addRow(QString(), pixels_);
    form->addRow(labelFor(tr("F&ile:"), pathEdit_), file);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    pathEdit_->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 48);

    connect(buttons, &QDialogButtonBox::accepted, this, &FigureExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(figureBox_, &QComboBox::currentIndexChanged, this, &FigureExportDialog::figureChanged);
    connect(formatBox_, &QComboBox::currentIndexChanged, this, &FigureExportDialog::formatChanged);
    connect(reset, &QPushButton::clicked, this, [this] {
        if (const Figure* f = figure()) showDefaultSize(*f);
    });
    for (QSpinBox* box : {widthBox_, heightBox_, dpiBox_})
        connect(box, &QSpinBox::valueChanged, this, &FigureExportDialog::updatePixels);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(
            this, tr("Export Figure"), path(), tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (!chosen.isEmpty()) setPath(chosen);
    });

    // The format and this tab's figure chosen at the last export (the view's context menu may
    // then select another figure by name).
    const int format = formatBox_->findData(kFormat.value());
    {
        const QSignalBlocker blocker(formatBox_);
        formatBox_->setCurrentIndex(format >= 0 ? format : 0);
    }
    const int chosen = figureBox_->findData(chosenFigure(figures_).value());
    if (chosen > 0) {
        const QSignalBlocker blocker(figureBox_);
        figureBox_->setCurrentIndex(chosen);
    }
    figureChanged();
    formatChanged();
}

const Figure* FigureExportDialog::figure() const
{
    const int index = figureBox_->currentIndex();
    return index >= 0 && index < static_cast<int>(figures_.size()) ? figures_[static_cast<std::size_t>(index)]
                                                                   : nullptr;
}

FigureFormat FigureExportDialog::format() const
{
    FigureFormat format = FigureFormat::Png;
    figureFormatFromName(formatBox_->currentData().toString(), format);
    return format;
}

ExportSize FigureExportDialog::size() const
{
    ExportSize size{QSizeF(widthBox_->value(), heightBox_->value())};
    if (format() == FigureFormat::Png) size.pixelRatio = dpiBox_->value() / 96.0;
    return size;
}

QString FigureExportDialog::path() const { return pathEdit_->text(); }

void FigureExportDialog::setPath(const QString& path)
{
    pathEdit_->setText(path);
    FigureFormat fromSuffix;
    if (figureFormatFromPath(path, fromSuffix) && fromSuffix != format())
        formatBox_->setCurrentIndex(formatBox_->findData(figureFormatName(fromSuffix)));
}

bool FigureExportDialog::selectFigure(const QString& name)
{
    const int index = figureBox_->findData(name);
    if (index < 0) return false;
    figureBox_->setCurrentIndex(index);
    return true;
}

void FigureExportDialog::showDefaultSize(const Figure& figure)
{
    const QSizeF size = sizeOf_ ? sizeOf_(figure) : figure.defaultSize;
    widthBox_->setValue(static_cast<int>(std::lround(size.width())));
    heightBox_->setValue(static_cast<int>(std::lround(size.height())));
}

void FigureExportDialog::figureChanged()
{
    const Figure* f = figure();
    if (!f) return;
    showDefaultSize(*f);
    const QString folder = path().isEmpty() ? startFolder() : QFileInfo(path()).absolutePath();
    pathEdit_->setText(QDir(folder).filePath(f->name + QLatin1Char('.') + figureFormatName(format())));
}

void FigureExportDialog::formatChanged()
{
    // The file's suffix follows the format.
    const QFileInfo info(path());
    if (!path().isEmpty())
        pathEdit_->setText(
            info.dir().filePath(info.completeBaseName() + QLatin1Char('.') + figureFormatName(format())));
    dpiBox_->setEnabled(format() == FigureFormat::Png);
    updatePixels();
}

void FigureExportDialog::updatePixels()
{
    if (format() != FigureFormat::Png) {
        pixels_->setText(
            tr("Vector: %1 × %2 pt, text kept as text")
                .arg(readableNumber(widthBox_->value() * 0.75), readableNumber(heightBox_->value() * 0.75)));
        return;
    }
    const QSize pixels = size().pixels();
    pixels_->setText(tr("PNG of %1 × %2 pixels").arg(groupedInteger(pixels.width()), groupedInteger(pixels.height())));
}

void FigureExportDialog::accept()
{
    if (path().isEmpty()) return;
    setPath(path());  // a suffix typed into the file's name chooses the format, as Browse does
    kDirectory.setValue(QFileInfo(path()).absolutePath());
    kFormat.setValue(figureFormatName(format()));
    kDpi.setValue(dpiBox_->value());
    if (const Figure* f = figure()) chosenFigure(figures_).setValue(f->name);
    QDialog::accept();
}

}  // namespace qkv::ui
