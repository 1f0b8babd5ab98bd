#include "ui/modelgrid/model_grid_table.hpp"

#include <QCoreApplication>

#include <utility>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/modelgrid/model_grid_text.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::ModelGridTable)
};

}  // namespace

CellTable modelHeadsTable(std::function<std::shared_ptr<const qkv::ModelOverview>()> overview, QString caption)
{
    // One grid of the statistics (L x h) gives the table's shape, as it does the figures'.
    const auto grid = [overview] { return statisticGrid(overview()->statistics, ModelStatistic::Entropy); };
    CellTable table;
    table.caption = [caption] { return caption; };
    table.rowCount = [overview, grid] { return overview() ? static_cast<int>(grid().rows()) : 0; };
    table.columnCount = [overview, grid] { return overview() ? static_cast<int>(grid().cols()) : 0; };
    table.rowHeader = [overview](int row) { return Text::tr("Layer %1").arg(layerLabel(overview()->layer(row))); };
    table.columnHeader = [](int column) { return Text::tr("Head %1").arg(column + 1); };
    table.cellName = [overview](int row, int column) {
        return plainTextOfToolTip(headToolTip(*overview(), row, column));
    };
    table.currentCell = [] { return TableCell{}; };  // a click opens the head; nothing is current here
    return table;
}

}  // namespace qkv::ui
