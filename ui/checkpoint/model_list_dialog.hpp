#pragma once
// File > Open Model…: the models of the Hugging Face cache and the GGUF models Ollama and LM Studio
// keep (model_listing.hpp), one row each (name, where it comes from, family, attention layers,
// how it is stored, size on disk, the memory it will take as the app loads it, whether it can be
// read and why not), the last one opened first. Listing runs off the GUI thread: the names first,
// then each row as its headers (never its weights) are read; a model too large for the machine is
// greyed with both figures. "Other Folder…" and "Other File…" pick any model folder or file instead. The choice
// then opens as File > Open Checkpoint… opens a file.

#include <QDialog>
#include <QFutureWatcher>
#include <QString>

#include <vector>

#include "ui/checkpoint/model_listing.hpp"

class QDialogButtonBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace qkv::ui {

class ModelListDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { Name, Source, Family, Layers, StoredAs, Size, Memory, Status, ColumnCount };

    // `sources`: where to look (the app: the environment's folders); `lastOpened`: the path of the
    // model opened last, listed first.
    ModelListDialog(ModelSources sources, QString lastOpened, QWidget* parent = nullptr);
    // The Hugging Face cache alone.
    ModelListDialog(const QString& cacheFolder, QString lastOpened, QWidget* parent = nullptr);
    ~ModelListDialog() override;

    // What to open: the selected model's snapshot folder or GGUF file, or what "Other…" chose.
    QString chosenPath() const { return chosen_; }
    QString chosenFolder() const { return chosen_; }

    // The file dialog's filters for a model file: safetensors, shard indexes, GGUF, Ollama's blobs.
    static QString modelFileFilters();

    // For tests.
    QTableWidget* table() const { return table_; }
    QLabel* messageLabel() const { return message_; }
    // Until every model's headers are read and shown.
    bool isListing() const { return listing_; }
    void selectRow(int row);
    const std::vector<ListedModel>& models() const { return models_; }

signals:
    void listed();

private:
    void setUpTable();
    void showNames(const std::vector<ListedModel>& models);
    void describeRows(int begin, int end);
    void showListed();
    void showRow(int row, const ListedModel& model);
    void selectFirstReadable();
    void chooseOtherFolder();
    void chooseOtherFile();
    void updateOpenButton();
    void acceptSelected();

    ModelSources sources_;
    QString lastOpened_;
    QString chosen_;
    std::vector<ListedModel> models_;  // in the table's order
    QFutureWatcher<std::vector<ListedModel>> names_;  // listModelNames
    QFutureWatcher<ListedModel> details_;              // describeModel, row by row in the table's order
    bool listing_ = true;
    QLabel* source_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* message_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QPushButton* open_ = nullptr;
};

}  // namespace qkv::ui
