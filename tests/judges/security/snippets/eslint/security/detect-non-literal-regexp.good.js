const SLUG = new RegExp("^[a-z0-9-]+$", "i");

function search(req, items) {
  return items.filter((item) => item.includes(req.query.q) && SLUG.test(item));
}

module.exports = { search };
