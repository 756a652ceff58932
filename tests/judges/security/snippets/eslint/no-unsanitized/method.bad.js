function appendRow(table, row) {
  table.insertAdjacentHTML("beforeend", `<tr><td>${row.name}</td></tr>`);
}

export { appendRow };
