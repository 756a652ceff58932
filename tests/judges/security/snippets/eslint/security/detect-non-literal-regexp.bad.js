function search(req, items) {
  const pattern = new RegExp(req.query.q);
  return items.filter((item) => pattern.test(item));
}

module.exports = { search };
