function appendRow(table, row) {
  const tr = document.createElement("tr");
  const td = document.createElement("td");
  td.textContent = row.name;
  tr.appendChild(td);
  table.appendChild(tr);
  table.insertAdjacentHTML("beforeend", "<tr><td>total</td></tr>");
}

export { appendRow };
