#pragma once
// The per-head statistics beside the heads grid: for every head the means
// over its query rows of the entropy, the normalised entropy, the mean attention distance, the
// largest weight and (self modes) the weight on the query's own position. Every number is
// core/analysis's headStatisticsSummaries, computed through a LatestTask (in the background
// for big results: ~2 s for 12 heads at n = 4096). Sortable by any column; clicking a row
// selects its head for every view, and the selected head's row follows the selection.
// Beside the grid the table is only as tall as its rows, and a footer (the view's hint) takes the
// room under it rather than leaving it blank.

#include <QWidget>

#include <memory>
#include <vector>

#include "core/analysis/head_statistics.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/background/latest_task.hpp"

class QLabel;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace qkv::ui {

class HeadSelection;

class HeadStatisticsTable : public QWidget {
    Q_OBJECT
public:
    enum Column { HeadColumn, Entropy, NormalizedEntropy, MeanDistance, MaxWeight, SelfWeight, ColumnCount };

    explicit HeadStatisticsTable(HeadSelection* selection, QWidget* parent = nullptr);
    ~HeadStatisticsTable() override;

    // Recomputes when the result differs from the last one (its owner calls this from refresh).
    void setResult(std::shared_ptr<const qkv::Result> result);

    const std::vector<qkv::HeadStatisticsSummary>& summaries() const { return summaries_; }
    // The result last set (its numbers may still be on their way).
    const std::shared_ptr<const qkv::Result>& result() const { return result_; }
    QTableView* table() const { return table_; }
    QStandardItemModel* model() const { return model_; }
    // The head shown in a row of the (sorted) table.
    int headOfRow(int row) const;
    bool isBusy() const { return task_.isBusy(); }
    // A widget shown under the table while it is beside the grid (footerPlaced says when it
    // moves in, and when its owner should show it again).
    void setFooter(QWidget* footer);
    // Beside the grid (true) or under it.
    bool isBeside() const;

    QSize sizeHint() const override;

signals:
    void summariesReady();
    // The footer was put under the table (true), or taken out: its owner lays it out (false).
    void footerPlaced(bool underTable);

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Computed {
        std::shared_ptr<const qkv::Result> result;
        std::vector<qkv::HeadStatisticsSummary> summaries;
    };
    void show(Computed computed);
    void followSelection();
    // In a splitter beside the grid (at most 2/5 of its width, the grid keeps the rest), or
    // under it when the columns would not fit there (at most 2/5 of its height).
    void fitInSplitter(bool first);
    void fitColumnWidths();
    int columnsWidth() const;  // every column whole
    bool fitsBeside(int splitterWidth) const;
    int wholeTableHeight() const;
    int rowsHeight() const;  // the header and every row
    // Beside: the table as tall as its rows, the footer under it; under: the table fills.
    void fitTableHeight();

    bool placed_ = false;  // the first show gave the table its width in the splitter
    QSize shownSizeHint_;  // the size hint the layouts above were last told of
    // Says "computing…" in the caption when the numbers take longer than a moment: a caption
    // that changed twice a frame had every layout up to the tabs redone, and the whole tab
    // repainted, while the heads figure was being made.
    QTimer* computingCaption_;
    HeadSelection* selection_;
    std::shared_ptr<const qkv::Result> result_;
    std::vector<qkv::HeadStatisticsSummary> summaries_;
    QLabel* caption_;
    QTableView* table_;
    QWidget* footer_ = nullptr;
    QStandardItemModel* model_;
    LatestTask<Computed> task_;
};

}  // namespace qkv::ui
