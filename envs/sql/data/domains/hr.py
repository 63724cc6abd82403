"""``hr``: a company's locations, departments, jobs, employees (with managers) and projects."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from ..common import CITIES, email_for, insert_rows, iso_date, maybe, person_name, random_date
from ..templates import t

DB_ID = "hr"

SCHEMA = """
CREATE TABLE locations (
    location_id INTEGER PRIMARY KEY,
    city TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE TABLE departments (
    department_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    location_id INTEGER NOT NULL REFERENCES locations (location_id),
    budget REAL NOT NULL
);
CREATE TABLE jobs (
    job_id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    min_salary INTEGER NOT NULL,
    max_salary INTEGER NOT NULL
);
CREATE TABLE employees (
    employee_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    hire_date TEXT NOT NULL,
    job_id INTEGER NOT NULL REFERENCES jobs (job_id),
    department_id INTEGER REFERENCES departments (department_id),
    manager_id INTEGER REFERENCES employees (employee_id),
    salary INTEGER NOT NULL,
    commission_pct REAL
);
CREATE TABLE projects (
    project_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    department_id INTEGER NOT NULL REFERENCES departments (department_id),
    start_date TEXT NOT NULL,
    end_date TEXT,
    budget REAL NOT NULL
);
CREATE TABLE assignments (
    employee_id INTEGER NOT NULL REFERENCES employees (employee_id),
    project_id INTEGER NOT NULL REFERENCES projects (project_id),
    role TEXT NOT NULL,
    hours INTEGER NOT NULL,
    PRIMARY KEY (employee_id, project_id)
);
"""

_DEPARTMENTS = (
    "Executive", "Sales", "Marketing", "Engineering", "Finance", "Human Resources", "Support",
    "Legal", "Operations", "Research", "Procurement",
)
_JOBS = (  # title, min, max, departments it appears in (indexes into _DEPARTMENTS)
    ("Chief Executive", 180000, 300000, (0,)),
    ("Department Head", 110000, 190000, ()),
    ("Sales Representative", 38000, 70000, (1,)),
    ("Account Manager", 55000, 95000, (1,)),
    ("Marketing Specialist", 45000, 80000, (2,)),
    ("Software Engineer", 70000, 140000, (3, 9)),
    ("QA Engineer", 55000, 100000, (3,)),
    ("Data Scientist", 80000, 150000, (3, 9)),
    ("Accountant", 50000, 90000, (4,)),
    ("HR Specialist", 42000, 75000, (5,)),
    ("Support Agent", 32000, 52000, (6,)),
    ("Lawyer", 90000, 170000, (7,)),
    ("Operations Analyst", 48000, 85000, (8, 10)),
    ("Buyer", 40000, 72000, (10,)),
    ("Research Scientist", 75000, 145000, (9,)),
)
_PROJECT_WORDS = (
    "Apollo Beacon Cobalt Delta Ember Falcon Granite Helix Ion Juniper Keystone".split()
)
_ROLES = ("developer", "developer", "analyst", "lead", "reviewer", "tester")


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    sites = [CITIES[i] for i in (0, 2, 11, 17, 26, 31)]
    insert_rows(conn, "locations", [(i + 1, c, k) for i, (c, k) in enumerate(sites)])
    insert_rows(
        conn,
        "departments",
        [
            (i + 1, name, 1 if i == 0 else rng.randint(1, 6), float(rng.randint(20, 400) * 5000))
            for i, name in enumerate(_DEPARTMENTS)
        ],
    )
    insert_rows(conn, "jobs", [(i + 1, j[0], j[1], j[2]) for i, j in enumerate(_JOBS)])
    employees: list[tuple] = []

    def hire(job: int, dept: int | None, manager: int | None, start: date) -> int:
        first, last = person_name(rng)
        eid = len(employees) + 1
        low, high = _JOBS[job][1], _JOBS[job][2]
        salary = rng.randint(low // 500, high // 500) * 500
        if rng.random() < 0.04:
            salary = high + rng.randint(1, 20) * 500  # a few are paid above their range
        commission = round(rng.choice([0.05, 0.1, 0.15, 0.2]), 2) if job in (2, 3) else None
        hired = random_date(rng, start, date(2024, 5, 31))
        employees.append(
            (eid, first, last, email_for(first, last, eid, "corp.example"), iso_date(hired),
             job + 1, dept, manager, salary, maybe(rng, commission, 0.2))
        )
        return eid

    ceo = hire(0, 1, None, date(2008, 1, 1))
    for d in range(1, len(_DEPARTMENTS)):
        head = hire(1, d + 1, ceo, date(2010, 1, 1))
        jobs = [j for j, spec in enumerate(_JOBS) if d in spec[3]]
        leads = [head]
        for _ in range(rng.randint(8, 34)):
            boss = rng.choice(leads)
            eid = hire(rng.choice(jobs), d + 1, boss, date(2012, 1, 1))
            if len(leads) < 3 and rng.random() < 0.2:
                leads.append(eid)
    for _ in range(5):  # contractors without a department
        hire(rng.choice([5, 12]), None, ceo, date(2022, 1, 1))
    insert_rows(conn, "employees", employees)
    projects, assignments = [], []
    for pid in range(1, 31):
        dept = rng.choice(range(2, 11))  # Executive and Procurement run no projects
        start = random_date(rng, date(2019, 1, 1), date(2024, 3, 1))
        end = start + timedelta(days=rng.randint(60, 700))
        name = f"{_PROJECT_WORDS[pid % len(_PROJECT_WORDS)]} {pid}"
        projects.append(
            (pid, name, dept, iso_date(start), iso_date(end) if end < date(2024, 6, 30) else None,
             float(rng.randint(5, 120) * 10000))
        )
        staff = [e for e in employees if e[6] == dept] + [e for e in employees if e[6] is None]
        for e in rng.sample(staff, k=min(len(staff), rng.randint(3, 12))):
            assignments.append((e[0], pid, rng.choice(_ROLES), rng.randint(2, 160) * 5))
    insert_rows(conn, "projects", projects)
    insert_rows(conn, "assignments", sorted(assignments))


TEMPLATES = [
    t("easy", "How many employees were hired in {year}?",
      "SELECT COUNT(*) FROM employees WHERE substr(hire_date, 1, 4) = {year}",
      year="SELECT substr(hire_date, 1, 4) FROM employees"),
    t("easy", "What is the salary of the employee with e-mail {email}?",
      "SELECT salary FROM employees WHERE email = {email}", count=2,
      email="SELECT email FROM employees"),
    t("easy", "List the first and last names of the employees who earn more than {amount}.",
      "SELECT first_name, last_name FROM employees WHERE salary > {amount}", count=2,
      amount="SELECT 120000 UNION SELECT 140000 UNION SELECT 150000"),
    t("easy", "How many employees are not assigned to any department?",
      "SELECT COUNT(*) FROM employees WHERE department_id IS NULL"),
    t("easy", "What is the highest salary paid to any employee?",
      "SELECT MAX(salary) FROM employees"),
    t("easy", "List the titles of the jobs whose maximum salary is above {amount}.",
      "SELECT title FROM jobs WHERE max_salary > {amount}", count=2,
      amount="SELECT 100000 UNION SELECT 140000 UNION SELECT 160000"),
    t("easy", "Give the first name, last name and hire date of the 5 most recently hired "
      "employees, most recent first.",
      "SELECT first_name, last_name, hire_date FROM employees ORDER BY hire_date DESC LIMIT 5"),
    t("easy", "How many employees have a commission percentage?",
      "SELECT COUNT(*) FROM employees WHERE commission_pct IS NOT NULL"),
    t("easy", "What is the average salary of the employees of the department with id {d}, "
      "rounded to 2 decimals?",
      "SELECT ROUND(AVG(salary), 2) FROM employees WHERE department_id = {d}", count=2,
      d="SELECT department_id FROM employees WHERE department_id > 1"),
    t("easy", "Which projects have no end date yet? Give their names.",
      "SELECT name FROM projects WHERE end_date IS NULL"),
    t("easy", "How many employees have the last name {last}?",
      "SELECT COUNT(*) FROM employees WHERE last_name = {last}", count=2,
      last="SELECT last_name FROM employees GROUP BY last_name HAVING COUNT(*) > 1"),
    t("easy", "What is the total budget of all departments?",
      "SELECT SUM(budget) FROM departments"),
    t("easy", "How many projects started in {year}?",
      "SELECT COUNT(*) FROM projects WHERE substr(start_date, 1, 4) = {year}", count=2,
      year="SELECT substr(start_date, 1, 4) FROM projects"),
    t("easy", "How many employees earn between {low} and {high} inclusive?",
      "SELECT COUNT(*) FROM employees WHERE salary BETWEEN {low} AND {high}", count=2,
      low="SELECT 40000 UNION SELECT 60000 UNION SELECT 80000",
      high="SELECT {low} + 20000 UNION SELECT {low} + 40000"),
    t("medium", "For each country with departments, what is the total budget of the departments "
      "located there?",
      "SELECT l.country, SUM(d.budget) FROM locations l JOIN departments d "
      "ON d.location_id = l.location_id GROUP BY l.country"),
    t("medium", "How many employees work in the {dept} department?",
      "SELECT COUNT(*) FROM employees e JOIN departments d ON d.department_id = e.department_id "
      "WHERE d.name = {dept}",
      dept="SELECT name FROM departments WHERE department_id > 1"),
    t("medium", "For each department with employees, give its name and the average salary of "
      "its employees, rounded to 2 decimals.",
      "SELECT d.name, ROUND(AVG(e.salary), 2) FROM departments d JOIN employees e "
      "ON e.department_id = d.department_id GROUP BY d.department_id, d.name"),
    t("medium", "List the first and last names of the employees whose department is located "
      "in {city}.",
      "SELECT e.first_name, e.last_name FROM employees e JOIN departments d "
      "ON d.department_id = e.department_id JOIN locations l ON l.location_id = d.location_id "
      "WHERE l.city = {city}", count=2,
      city="SELECT l.city FROM locations l JOIN departments d ON d.location_id = l.location_id"),
    t("medium", "Which departments have more than {n} employees? Give the department name and "
      "the number of employees.",
      "SELECT d.name, COUNT(*) FROM departments d JOIN employees e "
      "ON e.department_id = d.department_id GROUP BY d.department_id, d.name "
      "HAVING COUNT(*) > {n}", count=2, n="SELECT 15 UNION SELECT 20 UNION SELECT 25"),
    t("medium", "For each job title held by at least one employee, how many employees hold it?",
      "SELECT j.title, COUNT(*) FROM jobs j JOIN employees e ON e.job_id = j.job_id "
      "GROUP BY j.job_id, j.title"),
    t("medium", "List the names of the projects that the employee with e-mail {email} is "
      "assigned to.",
      "SELECT p.name FROM projects p JOIN assignments a ON a.project_id = p.project_id "
      "JOIN employees e ON e.employee_id = a.employee_id WHERE e.email = {email}", count=2,
      email="SELECT e.email FROM employees e JOIN assignments a ON a.employee_id = e.employee_id"),
    t("medium", "What is the total number of hours logged on projects of the {dept} "
      "department?",
      "SELECT SUM(a.hours) FROM assignments a JOIN projects p ON p.project_id = a.project_id "
      "JOIN departments d ON d.department_id = p.department_id WHERE d.name = {dept}", count=2,
      dept="SELECT d.name FROM departments d JOIN projects p ON p.department_id = d.department_id"),
    t("medium", "List the first and last names of the employees whose manager has the e-mail "
      "address {email}.",
      "SELECT e.first_name, e.last_name FROM employees e JOIN employees m "
      "ON m.employee_id = e.manager_id WHERE m.email = {email}", count=2,
      email="SELECT m.email FROM employees m JOIN employees e ON e.manager_id = m.employee_id "
      "WHERE m.manager_id IS NOT NULL"),
    t("medium", "Which employees are paid more than the maximum salary of their job? Give first "
      "name, last name, salary and the job's maximum salary.",
      "SELECT e.first_name, e.last_name, e.salary, j.max_salary FROM employees e JOIN jobs j "
      "ON j.job_id = e.job_id WHERE e.salary > j.max_salary"),
    t("medium", "Which employees earn more than their own manager? Give their first and last "
      "names.",
      "SELECT e.first_name, e.last_name FROM employees e JOIN employees m "
      "ON m.employee_id = e.manager_id WHERE e.salary > m.salary"),
    t("medium", "For each city with a department, how many employees work in that city?",
      "SELECT l.city, COUNT(e.employee_id) FROM locations l JOIN departments d "
      "ON d.location_id = l.location_id JOIN employees e ON e.department_id = d.department_id "
      "GROUP BY l.city"),
    t("hard", "List the first and last names of the employees who earn more than the average "
      "salary of their own department.",
      "SELECT e.first_name, e.last_name FROM employees e WHERE e.salary > "
      "(SELECT AVG(e2.salary) FROM employees e2 WHERE e2.department_id = e.department_id)"),
    t("hard", "For each department, list its three best-paid employees (include ties): "
      "department name, first name, last name and salary.",
      "SELECT name, first_name, last_name, salary FROM (SELECT d.name, e.first_name, "
      "e.last_name, e.salary, RANK() OVER (PARTITION BY d.department_id ORDER BY e.salary DESC) "
      "AS rk FROM departments d JOIN employees e ON e.department_id = d.department_id) ranked "
      "WHERE rk <= 3"),
    t("hard", "Give the e-mail addresses of the employees who are not assigned to any project.",
      "SELECT email FROM employees e WHERE NOT EXISTS "
      "(SELECT 1 FROM assignments a WHERE a.employee_id = e.employee_id)"),
    t("hard", "How many employees report to the employee with e-mail {email}, directly or "
      "indirectly?",
      "WITH RECURSIVE reports(id) AS (SELECT employee_id FROM employees WHERE manager_id = "
      "(SELECT employee_id FROM employees WHERE email = {email}) UNION ALL SELECT e.employee_id "
      "FROM employees e JOIN reports r ON e.manager_id = r.id) SELECT COUNT(*) FROM reports",
      count=2,
      email="SELECT m.email FROM employees m JOIN employees e ON e.manager_id = m.employee_id "
      "WHERE m.manager_id IS NOT NULL"),
    t("hard", "Give the e-mail addresses of the employees who have been a 'lead' on one project "
      "and a 'developer' on another.",
      "SELECT e.email FROM employees e JOIN assignments a ON a.employee_id = e.employee_id "
      "WHERE a.role = 'lead' INTERSECT SELECT e.email FROM employees e JOIN assignments a "
      "ON a.employee_id = e.employee_id WHERE a.role = 'developer'"),
    t("hard", "For each hiring year, give the year, the number of employees hired that year and "
      "the cumulative number hired up to and including that year, ordered by year.",
      "WITH yearly AS (SELECT substr(hire_date, 1, 4) AS year, COUNT(*) AS hired FROM employees "
      "GROUP BY substr(hire_date, 1, 4)) SELECT year, hired, SUM(hired) OVER (ORDER BY year) "
      "FROM yearly ORDER BY year"),
    t("hard", "Which departments run no projects? Give their names.",
      "SELECT name FROM departments EXCEPT SELECT d.name FROM departments d JOIN projects p "
      "ON p.department_id = d.department_id"),
    t("hard", "For each employee of the {dept} department, how far is their salary from the "
      "company-wide average salary of their job title? Give first name, last name and the "
      "difference (salary minus average) rounded to 2 decimals.",
      "SELECT first_name, last_name, ROUND(salary - job_avg, 2) FROM (SELECT e.first_name, "
      "e.last_name, e.salary, e.department_id, AVG(e.salary) OVER (PARTITION BY e.job_id) "
      "AS job_avg FROM employees e) x JOIN departments d ON d.department_id = x.department_id "
      "WHERE d.name = {dept}", count=2,
      dept="SELECT name FROM departments WHERE department_id > 1"),
    t("hard", "For each department that runs projects, which project has the most hours logged? "
      "Give the department name, the project name and its total hours (include ties).",
      "WITH totals AS (SELECT p.department_id, p.name, SUM(a.hours) AS hours FROM projects p "
      "JOIN assignments a ON a.project_id = p.project_id GROUP BY p.project_id, p.department_id, "
      "p.name) SELECT d.name, t.name, t.hours FROM totals t JOIN departments d "
      "ON d.department_id = t.department_id WHERE t.hours = (SELECT MAX(t2.hours) FROM totals t2 "
      "WHERE t2.department_id = t.department_id)"),
]
