async function findUser(db, name) {
  return db.query('SELECT * FROM users WHERE name = ?', [name]);
}
function byId(pool, id) {
  return pool.query('SELECT * FROM users WHERE id = $1', [id]);
}
module.exports = { findUser, byId };
