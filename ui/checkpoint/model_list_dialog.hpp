#pragma once
// File > Open Model…: the models of the Hugging Face cache (core/checkpoint/model_folders.hpp),
// one row each (name, family, attention layers, size, whether it can be read and why not), the
// last one opened first. The cache is read off the GUI thread (each model's headers, never its
// weights) while the dialog says so; "Other Folder…" picks any model folder instead. The chosen
// folder then opens as File > Open Checkpoint… opens a file.

#include <QDialog>
#include <QFutureWatcher>
#include <QString>

#include <vector>

#include "core/checkpoint/model_folders.hpp"

class QDialogButtonBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace qkv::ui {

class ModelListDialog : public QDialog {
    Q_OBJECT
public:
    // `cacheFolder`: where to look (huggingFaceCacheFolder() in the app); `lastOpened`: the folder
    // of the model opened last, listed first.
    ModelListDialog(QString cacheFolder, QString lastOpened, QWidget* parent = nullptr);
    ~ModelListDialog() override;

    // The folder to open: the selected model's snapshot, or the folder "Other Folder…" chose.
    QString chosenFolder() const { return chosen_; }

    // For tests.
    QTableWidget* table() const { return table_; }
    QLabel* messageLabel() const { return message_; }
    bool isListing() const { return watcher_.isRunning(); }
    void selectRow(int row);

signals:
    void listed();

private:
    void showModels(const std::vector<qkv::CachedModel>& models);
    void chooseOtherFolder();
    void updateOpenButton();
    void acceptSelected();

    QString cacheFolder_;
    QString lastOpened_;
    QString chosen_;
    std::vector<qkv::CachedModel> models_;  // in the table's order
    QFutureWatcher<std::vector<qkv::CachedModel>> watcher_;
    QLabel* source_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* message_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QPushButton* open_ = nullptr;
};

}  // namespace qkv::ui
