#include "ui/checkpoint/model_list_dialog.hpp"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "ui/background/work_pool.hpp"

namespace qkv::ui {

namespace {

enum Column { Name, Family, Layers, Size, Status, ColumnCount };

// Core's messages start with the path they are about; in a row that already names the model, the
// reason reads better without a path inside the cache.
QString withoutCachePath(const QString& message, const QString& cacheFolder)
{
    const int colon = message.indexOf(QStringLiteral(": "));
    if (cacheFolder.isEmpty() || colon < 0 || !message.startsWith(cacheFolder)) return message;
    return message.mid(colon + 2);
}

QTableWidgetItem* cell(const QString& text, bool readable, const QString& tooltip = {})
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(readable ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags);
    if (!tooltip.isEmpty()) item->setToolTip(tooltip);
    return item;
}

}  // namespace

ModelListDialog::ModelListDialog(QString cacheFolder, QString lastOpened, QWidget* parent)
    : QDialog(parent), cacheFolder_(std::move(cacheFolder)), lastOpened_(std::move(lastOpened)),
      source_(new QLabel(this)), table_(new QTableWidget(0, ColumnCount, this)), message_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Open Model"));
    auto* layout = new QVBoxLayout(this);
    source_->setWordWrap(true);
    source_->setTextFormat(Qt::PlainText);
    source_->setText(cacheFolder_.isEmpty()
                         ? tr("No Hugging Face cache folder can be named ($HF_HUB_CACHE, $HF_HOME and $HOME are unset).")
                         : tr("Models in the Hugging Face cache, %1 (set by $HF_HUB_CACHE or $HF_HOME):").arg(cacheFolder_));
    layout->addWidget(source_);

    table_->setHorizontalHeaderLabels({tr("Model"), tr("Family"), tr("Attention layers"), tr("Size"), tr("Can it be read?")});
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(Status, QHeaderView::Stretch);
    table_->setWordWrap(true);  // a reason is read whole
    table_->setAccessibleName(tr("Models"));
    layout->addWidget(table_, 1);

    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setText(tr("Looking for models…"));
    layout->addWidget(message_);

    open_ = buttons_->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
    open_->setEnabled(false);
    QPushButton* other = buttons_->addButton(tr("Other &Folder…"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons_);
    connect(other, &QPushButton::clicked, this, &ModelListDialog::chooseOtherFolder);
    connect(buttons_, &QDialogButtonBox::accepted, this, &ModelListDialog::acceptSelected);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &ModelListDialog::updateOpenButton);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this] { acceptSelected(); });
    resize(820, 420);

    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        showModels(watcher_.result());
        emit listed();
    });
    // Each model's headers are read (a shard index names many files): never on the GUI thread.
    const std::string folder = cacheFolder_.toStdString();
    watcher_.setFuture(QtConcurrent::run(workPool(), [folder] {
        return folder.empty() ? std::vector<qkv::CachedModel>{} : qkv::listCachedModels(folder);
    }));
}

ModelListDialog::~ModelListDialog() { watcher_.waitForFinished(); }

void ModelListDialog::showModels(const std::vector<qkv::CachedModel>& models)
{
    models_ = models;
    // The last model opened first, the others by name (as listed).
    std::stable_partition(models_.begin(), models_.end(), [this](const qkv::CachedModel& model) {
        return !lastOpened_.isEmpty() && QString::fromStdString(model.folder) == lastOpened_;
    });
    table_->setRowCount(static_cast<int>(models_.size()));
    const QLocale locale;
    for (int row = 0; row < table_->rowCount(); ++row) {
        const qkv::CachedModel& model = models_[static_cast<std::size_t>(row)];
        const QString why = QString::fromStdString(model.whyNot);
        const QString folder = QString::fromStdString(model.folder);
        table_->setItem(row, Name, cell(QString::fromStdString(model.name), model.readable, folder));
        table_->setItem(row, Family, cell(QString::fromStdString(model.family), model.readable));
        table_->setItem(row, Layers, cell(model.readable ? QString::number(model.attentionLayers) : QString(),
                                          model.readable));
        const QString size = model.bytes > 0 ? locale.formattedDataSize(static_cast<qint64>(model.bytes)) : QString();
        table_->setItem(row, Size, cell(size, model.readable));
        const QString status =
            !model.readable           ? tr("no: %1").arg(withoutCachePath(why, cacheFolder_))
            : model.withoutTokenizer ? tr("its layers; not its own input: no tokenizer files it reads beside it "
                                          "(vocab.txt, vocab.json with merges.txt, or a SentencePiece model)")
                                     : tr("yes");
        table_->setItem(row, Status, cell(status, model.readable, why));
    }
    table_->resizeRowsToContents();
    if (cacheFolder_.isEmpty() || !QFileInfo(cacheFolder_).isDir())
        message_->setText(tr("There is no Hugging Face cache here. Other Folder… opens any model folder "
                             "(config.json, model.safetensors and the tokenizer files)."));
    else if (models_.empty())
        message_->setText(tr("The cache holds no model. Other Folder… opens any model folder."));
    else
        message_->setText((models_.size() == 1 ? tr("1 model.") : tr("%1 models.").arg(models_.size())) +
                          QLatin1Char(' ') + tr("Grey ones cannot be read; the last column says why."));
    for (int row = 0; row < table_->rowCount(); ++row)
        if (models_[static_cast<std::size_t>(row)].readable) {
            selectRow(row);
            break;
        }
}

void ModelListDialog::selectRow(int row)
{
    if (row < 0 || row >= table_->rowCount()) return;
    table_->selectRow(row);
    table_->setCurrentCell(row, Name);
}

void ModelListDialog::updateOpenButton()
{
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    open_->setEnabled(!selected.isEmpty() && models_[static_cast<std::size_t>(selected.front()->row())].readable);
}

void ModelListDialog::acceptSelected()
{
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    if (selected.isEmpty()) return;
    const qkv::CachedModel& model = models_[static_cast<std::size_t>(selected.front()->row())];
    if (!model.readable) return;
    chosen_ = QString::fromStdString(model.folder);
    accept();
}

void ModelListDialog::chooseOtherFolder()
{
    const QString start = lastOpened_.isEmpty() ? cacheFolder_ : QFileInfo(lastOpened_).absolutePath();
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), start);
    if (folder.isEmpty()) return;
    chosen_ = folder;
    accept();
}

}  // namespace qkv::ui
