// Rows aligned under their headers, as `memdir log` and `memdir usage` print them.

/**
 * Rows aligned under their headers, two spaces apart; columns in `right` are right-aligned (numbers)
 * and the last column is never padded.
 */
export function table(
  headers: readonly string[],
  rows: readonly string[][],
  right: readonly number[] = [],
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => {
        if (column === cells.length - 1 && !right.includes(column)) return cell;
        return right.includes(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!);
      })
      .join('  ');
  return `${[headers, ...rows].map(line).join('\n')}\n`;
}
