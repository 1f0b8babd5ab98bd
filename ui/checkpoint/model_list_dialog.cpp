#include "ui/checkpoint/model_list_dialog.hpp"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPromise>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "ui/background/work_pool.hpp"

namespace qkv::ui {

namespace {

// Core's messages start with the path they are about; in a row that already names the model, the
// reason reads better without a path inside the folder listed.
QString withoutListedPath(const QString& message, const QString& path)
{
    const int colon = message.indexOf(QStringLiteral(": "));
    if (path.isEmpty() || colon < 0 || !message.startsWith(path)) return message;
    return message.mid(colon + 2);
}

QTableWidgetItem* cell(const QString& text, bool readable, const QString& tooltip = {})
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(readable ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags);
    if (!tooltip.isEmpty()) item->setToolTip(tooltip);
    return item;
}

QString text(const std::string& s) { return QString::fromStdString(s); }

// "4.7 GiB, one block at a time" / "1.2 GiB, whole".
QString memoryText(const qkv::ModelLoadMemory& memory)
{
    const QString figure = text(memoryFigure(memory.bytes()));
    return memory.residency == qkv::WeightResidency::OneBlockAtATime
               ? ModelListDialog::tr("%1, one block at a time").arg(figure)
               : ModelListDialog::tr("%1, whole").arg(figure);
}

QString memoryTooltip(const qkv::ModelLoadMemory& memory)
{
    const QString available = memory.availableBytes > 0 ? text(memoryFigure(memory.availableBytes))
                                                         : ModelListDialog::tr("an unknown amount");
    return ModelListDialog::tr("Weights converted to float32 on loading, and a %1-token run: %2 with every block "
                               "in memory, %3 one block at a time (converted when a run reaches it; slower). "
                               "Whole when the float32 weights take at most half of what is available now (%4).")
        .arg(qkv::kLoadEstimateTokens)
        .arg(text(memoryFigure(memory.wholeBytes)), text(memoryFigure(memory.oneBlockBytes)), available);
}

// Where the dialog looked, for its first line.
QString placesText(const ModelSources& sources)
{
    QStringList places;
    if (!sources.huggingFaceCache.empty())
        places << ModelListDialog::tr("the Hugging Face cache, %1 ($HF_HUB_CACHE or $HF_HOME)").arg(text(sources.huggingFaceCache));
    if (!sources.ollamaModels.empty())
        places << ModelListDialog::tr("Ollama's, %1 ($OLLAMA_MODELS)").arg(text(sources.ollamaModels));
    if (!sources.lmStudioModels.empty()) places << ModelListDialog::tr("LM Studio's, %1").arg(text(sources.lmStudioModels));
    return places.isEmpty() ? ModelListDialog::tr("No model folder can be named ($HF_HUB_CACHE, $HF_HOME and $HOME are unset).")
                            : ModelListDialog::tr("Models in %1:").arg(places.join(QStringLiteral("; ")));
}

}  // namespace

ModelListDialog::ModelListDialog(const QString& cacheFolder, QString lastOpened, QWidget* parent)
    : ModelListDialog(ModelSources{cacheFolder.toStdString(), {}, {}}, std::move(lastOpened), parent)
{
}

ModelListDialog::ModelListDialog(ModelSources sources, QString lastOpened, QWidget* parent)
    : QDialog(parent), sources_(std::move(sources)), lastOpened_(std::move(lastOpened)), source_(new QLabel(this)),
      table_(new QTableWidget(0, ColumnCount, this)), message_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Open Model"));
    auto* layout = new QVBoxLayout(this);
    source_->setWordWrap(true);
    source_->setTextFormat(Qt::PlainText);
    source_->setText(placesText(sources_));
    layout->addWidget(source_);

    setUpTable();
    layout->addWidget(table_, 1);

    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setText(tr("Looking for models…"));
    layout->addWidget(message_);

    open_ = buttons_->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
    open_->setEnabled(false);
    QPushButton* otherFolder = buttons_->addButton(tr("Other &Folder…"), QDialogButtonBox::ActionRole);
    QPushButton* otherFile = buttons_->addButton(tr("Other F&ile…"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons_);
    connect(otherFolder, &QPushButton::clicked, this, &ModelListDialog::chooseOtherFolder);
    connect(otherFile, &QPushButton::clicked, this, &ModelListDialog::chooseOtherFile);
    connect(buttons_, &QDialogButtonBox::accepted, this, &ModelListDialog::acceptSelected);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &ModelListDialog::updateOpenButton);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this] { acceptSelected(); });
    resize(980, 480);

    connect(&names_, &QFutureWatcherBase::finished, this, [this] { showNames(names_.result()); });
    connect(&details_, &QFutureWatcherBase::resultsReadyAt, this, &ModelListDialog::describeRows);
    connect(&details_, &QFutureWatcherBase::finished, this, &ModelListDialog::showListed);
    // Folders and manifests, then each model's headers (a shard index names many files, a GGUF's
    // header holds its vocabulary): never on the GUI thread.
    names_.setFuture(QtConcurrent::run(workPool(), [sources = sources_] { return listModelNames(sources); }));
}

void ModelListDialog::setUpTable()
{
    table_->setHorizontalHeaderLabels({tr("Model"), tr("From"), tr("Family"), tr("Layers"), tr("Stored as"), tr("Size"),
                                       tr("Memory"), tr("Can it be read?")});
    table_->horizontalHeaderItem(Layers)->setToolTip(tr("Attention layers"));
    table_->horizontalHeaderItem(Memory)->setToolTip(
        tr("What the model takes as the app loads it: weights in float32, whole or one block at a time"));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    // Names (an LM Studio path) and the memory wrap in columns of their own width, so that the
    // reason a model cannot be read, the last column, stays in view at 1000 pixels.
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(Name, QHeaderView::Interactive);
    header->setSectionResizeMode(Memory, QHeaderView::Interactive);
    header->setSectionResizeMode(Status, QHeaderView::Stretch);
    table_->setColumnWidth(Name, 230);
    table_->setColumnWidth(Memory, 120);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setWordWrap(true);  // a reason is read whole
    table_->setAccessibleName(tr("Models"));
}

ModelListDialog::~ModelListDialog()
{
    details_.cancel();
    details_.waitForFinished();
    names_.waitForFinished();
}

void ModelListDialog::showNames(const std::vector<ListedModel>& models)
{
    models_ = models;
    // The last model opened first, the others as listed (each source by name).
    std::stable_partition(models_.begin(), models_.end(), [this](const ListedModel& model) {
        return !lastOpened_.isEmpty() && text(model.path) == lastOpened_;
    });
    table_->setRowCount(static_cast<int>(models_.size()));
    for (int row = 0; row < table_->rowCount(); ++row) showRow(row, models_[static_cast<std::size_t>(row)]);
    table_->resizeRowsToContents();
    if (models_.empty()) {
        showListed();
        return;
    }
    message_->setText(tr("Reading each model's headers…"));
    details_.setFuture(QtConcurrent::run(workPool(), [models = models_, memory = sources_.availableMemory](
                                                         QPromise<ListedModel>& promise) {
        const std::size_t available = memory ? memory() : 0;
        for (const ListedModel& model : models) {
            if (promise.isCanceled()) return;
            promise.addResult(describeModel(model, available));
        }
    }));
}

void ModelListDialog::describeRows(int begin, int end)
{
    for (int row = begin; row < end && row < table_->rowCount(); ++row) {
        models_[static_cast<std::size_t>(row)] = details_.resultAt(row);
        showRow(row, models_[static_cast<std::size_t>(row)]);
        table_->resizeRowToContents(row);
    }
    if (table_->selectedItems().isEmpty()) selectFirstReadable();
}

void ModelListDialog::showListed()
{
    listing_ = false;
    if (models_.empty())
        message_->setText(sources_.huggingFaceCache.empty() || !QFileInfo(text(sources_.huggingFaceCache)).isDir()
                              ? tr("There is no Hugging Face cache here, and no Ollama or LM Studio model. Other Folder… "
                                   "opens any model folder (config.json, model.safetensors and the tokenizer files); "
                                   "Other File… a .safetensors or .gguf file.")
                              : tr("No model found. Other Folder… opens any model folder; Other File… a .safetensors "
                                   "or .gguf file."));
    else
        message_->setText((models_.size() == 1 ? tr("1 model.") : tr("%1 models.").arg(models_.size())) +
                          QLatin1Char(' ') + tr("Grey ones cannot be read; the last column says why."));
    if (table_->selectedItems().isEmpty()) selectFirstReadable();
    emit listed();
}

void ModelListDialog::selectFirstReadable()
{
    for (int row = 0; row < table_->rowCount(); ++row)
        if (models_[static_cast<std::size_t>(row)].readable && models_[static_cast<std::size_t>(row)].described) {
            selectRow(row);
            return;
        }
}

void ModelListDialog::showRow(int row, const ListedModel& model)
{
    const QString why = text(model.whyNot);
    const bool readable = model.readable && model.described;  // chosen once its headers are read
    const QLocale locale;
    table_->setItem(row, Name, cell(text(model.name), readable, text(model.path)));
    table_->setItem(row, Source, cell(text(model.source), readable));
    table_->setItem(row, Family, cell(text(model.family), readable));
    table_->setItem(row, Layers, cell(model.attentionLayers > 0 ? QString::number(model.attentionLayers) : QString(), readable));
    table_->setItem(row, StoredAs, cell(text(model.storedAs), readable));
    table_->setItem(row, Size, cell(model.bytes > 0 ? locale.formattedDataSize(static_cast<qint64>(model.bytes)) : QString(),
                                    readable));
    table_->setItem(row, Memory, model.memory ? cell(memoryText(*model.memory), readable, memoryTooltip(*model.memory))
                                              : cell(QString(), readable));
    const QString listed = model.source == kHuggingFaceSource ? text(sources_.huggingFaceCache) : text(model.path);
    const QString status =
        !model.described        ? tr("reading its headers…")
        : !readable             ? tr("no: %1").arg(withoutListedPath(why, listed))
        : model.withoutTokenizer ? tr("its layers; not its own input: no tokenizer it reads (tokenizer files beside "
                                      "it, or a GGUF's tokenizer.ggml keys)")
                                 : tr("yes");
    table_->setItem(row, Status, cell(status, readable, why));
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
    const ListedModel* model = selected.isEmpty() ? nullptr : &models_[static_cast<std::size_t>(selected.front()->row())];
    open_->setEnabled(model && model->readable && model->described);
}

void ModelListDialog::acceptSelected()
{
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    if (selected.isEmpty()) return;
    const ListedModel& model = models_[static_cast<std::size_t>(selected.front()->row())];
    if (!model.readable || !model.described) return;
    chosen_ = text(model.path);
    accept();
}

QString ModelListDialog::modelFileFilters()
{
    // Ollama's blobs have no extension ("sha256-<hex>"): known by their first bytes when opened.
    return tr("Models (*.safetensors *.index.json *.gguf sha256-*);;GGUF (*.gguf);;safetensors (*.safetensors);;"
              "Sharded index (*.index.json);;All files (*)");
}

void ModelListDialog::chooseOtherFolder()
{
    const QString start = lastOpened_.isEmpty() ? text(sources_.huggingFaceCache) : QFileInfo(lastOpened_).absolutePath();
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), start);
    if (folder.isEmpty()) return;
    chosen_ = folder;
    accept();
}

void ModelListDialog::chooseOtherFile()
{
    const QString start = lastOpened_.isEmpty() ? text(sources_.lmStudioModels) : QFileInfo(lastOpened_).absolutePath();
    const QString file = QFileDialog::getOpenFileName(this, tr("Open Model File"), start, modelFileFilters());
    if (file.isEmpty()) return;
    chosen_ = file;
    accept();
}

}  // namespace qkv::ui
